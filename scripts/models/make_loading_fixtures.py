#!/usr/bin/env python3
"""Build the model-loading test fixtures in fixtures/models/ (random weights, no torch).

  tiny-xlmr-positions   The smallest graph with the position table of an XLM-RoBERTa model:
                        config.json says model_type xlm-roberta, max_position_embeddings 514,
                        pad_token_id 1, and tokenizer_config.json carries HF's "unbounded"
                        model_max_length sentinel (1e30), as bge-reranker-base/large do.
                        Position ids are cumsum(attention_mask) * attention_mask + pad_token_id,
                        as transformers' create_position_ids_from_input_ids computes them, so a
                        512-token input reads row 513 (the last) and a 513-token input fails with
                        onnxruntime's Gather "indices element out of data bounds": the bug of
                        taking 514 as the limit. Inputs input_ids, attention_mask (no
                        token_type_ids, like XLM-R exports); output logits [batch_size, 1] = a
                        linear head on the masked mean of word + position embeddings.
  tiny-external-data    tiny-cross-encoder re-saved with every initializer in an external data
                        file, onnx/model.onnx + onnx/model.onnx_data, the layout of every ONNX
                        export over 2 GB (onnx-community/bge-reranker-v2-m3-ONNX). Same outputs.

The tokenizer is tiny-cross-encoder's (a WordPiece vocabulary: the position limit does not depend
on it). Checks (the script exits non-zero if one fails): 512 tokens run and 513 fail with the
Gather error; onnxruntime matches a numpy forward pass within 1e-5; the external-data model
gives tiny-cross-encoder's logits exactly.

Usage:  .venv-py/bin/python scripts/models/make_loading_fixtures.py
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper
from onnx_graphs import IR_VERSION, OPSET, GraphBuilder

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(REPO, "fixtures", "models")
SOURCE = os.path.join(MODELS, "tiny-cross-encoder")
HIDDEN = 8
POSITIONS = 514
PAD_ID = 1
SEED = 44_2024
HF_UNBOUNDED = 1000000000000000019884624838656  # what transformers writes for "no limit"


def write_json(path: str, obj) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


def positions_graph(word: np.ndarray, pos: np.ndarray, head_w: np.ndarray, head_b: np.ndarray) -> onnx.ModelProto:
    g = GraphBuilder()
    dims = ["batch_size", "sequence_length"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask")]
    cums = g.op("CumSum", ["attention_mask", g.const(1, dtype=np.int64)], "positions/CumSum")
    pos_ids = g.op("Add", [g.op("Mul", [cums, "attention_mask"], "positions/Mul"), g.const(PAD_ID, dtype=np.int64)],
                   "positions/position_ids")
    x = g.op("Add", [g.op("Gather", [g.const(word, "embeddings.word_embeddings.weight"), "input_ids"], "word", axis=0),
                     g.op("Gather", [g.const(pos, "embeddings.position_embeddings.weight"), pos_ids], "position",
                          axis=0)], "embeddings/Add")
    mask = g.op("Unsqueeze", [g.op("Cast", ["attention_mask"], "mask/Cast", to=TensorProto.FLOAT),
                              g.const([2], dtype=np.int64)], "mask/Unsqueeze")
    axis = g.const([1], dtype=np.int64)
    total = g.op("ReduceSum", [g.op("Mul", [x, mask], "mean/Mul"), axis], "mean/Sum", keepdims=0)
    count = g.op("ReduceSum", [mask, axis], "mean/Count", keepdims=0)
    mean = g.op("Div", [total, count], "mean/Div")
    logits = g.op("Add", [g.op("MatMul", [mean, g.const(head_w, "classifier.weight")], "head/MatMul"),
                          g.const(head_b, "classifier.bias")], "head/Add", out="logits")
    del logits
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", 1])]
    graph = helper.make_graph(g.nodes, "main_graph", inputs, outputs, initializer=g.inits)
    mp = helper.make_model(graph, producer_name="ragrank-make_loading_fixtures", producer_version="1",
                           opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
    mp.doc_string = "ragrank test model tiny-xlmr-positions: random weights, not trained; 514 offset positions."
    onnx.checker.check_model(mp, full_check=True)
    return mp


def np_positions(word, pos, head_w, head_b, ids):
    mask = np.ones_like(ids)
    pos_ids = np.cumsum(mask, axis=1) * mask + PAD_ID
    x = word[ids] + pos[pos_ids]
    return x.mean(axis=1) @ head_w + head_b


def build_positions(vocab_size: int) -> None:
    d = os.path.join(MODELS, "tiny-xlmr-positions")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "onnx"))
    rng = np.random.default_rng(SEED)
    word = rng.normal(0, 0.5, (vocab_size, HIDDEN)).astype(np.float32)
    pos = rng.normal(0, 0.5, (POSITIONS, HIDDEN)).astype(np.float32)
    head_w = rng.normal(0, 0.5, (HIDDEN, 1)).astype(np.float32)
    head_b = np.zeros((1,), np.float32)
    path = os.path.join(d, "onnx", "model.onnx")
    onnx.save(positions_graph(word, pos, head_w, head_b), path)
    shutil.copy(os.path.join(SOURCE, "tokenizer.json"), d)
    tok_cfg = json.load(open(os.path.join(SOURCE, "tokenizer_config.json"), encoding="utf-8"))
    tok_cfg["model_max_length"] = HF_UNBOUNDED
    write_json(os.path.join(d, "tokenizer_config.json"), tok_cfg)
    write_json(os.path.join(d, "config.json"), {
        "_name_or_path": "ragrank/tiny-xlmr-positions",
        "architectures": ["XLMRobertaForSequenceClassification"],
        "model_type": "xlm-roberta",
        "hidden_size": HIDDEN,
        "max_position_embeddings": POSITIONS,
        "pad_token_id": PAD_ID,
        "type_vocab_size": 1,
        "vocab_size": vocab_size,
        "id2label": {"0": "LABEL_0"},
        "label2id": {"LABEL_0": 0},
    })

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    ids = rng.integers(5, vocab_size, (2, 512), dtype=np.int64)
    got = sess.run(["logits"], {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0]
    diff = float(np.abs(got - np_positions(word, pos, head_w, head_b, ids)).max())
    check(diff <= 1e-5, f"positions model vs numpy: max abs diff {diff:.2e}")
    long = rng.integers(5, vocab_size, (1, 513), dtype=np.int64)
    try:
        sess.run(["logits"], {"input_ids": long, "attention_mask": np.ones_like(long)})
        check(False, "513 tokens must fail the Gather of the 514-row position table")
    except Exception as e:  # onnxruntime's own error type differs across versions
        check("out of" in str(e) and "bounds" in str(e), f"513 tokens fail with the Gather bound: {str(e)[:90]}")


def build_external_data() -> None:
    d = os.path.join(MODELS, "tiny-external-data")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "onnx"))
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(SOURCE, name), d)
    mp = onnx.load(os.path.join(SOURCE, "onnx", "model.onnx"))
    path = os.path.join(d, "onnx", "model.onnx")
    onnx.save_model(mp, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx_data", size_threshold=1024)  # the default: small shape constants stay inline, as ORT needs them at load
    ids = np.array([[2, 40, 50, 60, 3, 70, 80, 3]], np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    run = lambda p: ort.InferenceSession(p, providers=["CPUExecutionProvider"]).run(["logits"], feeds)[0]
    check(np.array_equal(run(path), run(os.path.join(SOURCE, "onnx", "model.onnx"))),
          "the external-data model gives tiny-cross-encoder's logits")
    check(os.path.getsize(path) < 40_000, f"the weight matrices are in the data file, not the graph ({os.path.getsize(path)} bytes)")


failures = 0


def check(ok: bool, what: str) -> None:
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += not ok


def main() -> int:
    vocab = json.load(open(os.path.join(SOURCE, "tokenizer.json"), encoding="utf-8"))["model"]["vocab"]
    build_positions(len(vocab))
    build_external_data()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
