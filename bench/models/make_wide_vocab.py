#!/usr/bin/env python3
"""A model with a 250,002-entry WordPiece vocabulary (XLM-RoBERTa's size) and almost no compute, for the
per-call maxLength probe (bench/probes/max-length-calls.mjs): the cost it measures is the tokenizer's,
so the graph is an embedding lookup (250,002 x 8) and nothing else. Written to
bench/.cache/models/wide-vocab-embedder/ (gitignored; about 9 MB of weights, 6 MB of tokenizer).

Usage:  .venv-py/bin/python bench/models/make_wide_vocab.py
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "models"))
from onnx_graphs import IR_VERSION, OPSET, GraphBuilder  # noqa: E402

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(BENCH, ".cache", "models", "wide-vocab-embedder")
VOCAB = 250_002
WIDTH = 8
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def vocab() -> dict[str, int]:
    words = SPECIALS + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    rng = np.random.default_rng(250_002)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    seen = set(words)
    while len(words) < VOCAB:
        w = "".join(rng.choice(letters, rng.integers(2, 9)))
        w = w if rng.random() < 0.6 else "##" + w
        if w not in seen:
            seen.add(w)
            words.append(w)
    return {w: i for i, w in enumerate(words)}


def main() -> None:
    ids = vocab()
    tok = Tokenizer(models.WordPiece(ids, unk_token="[UNK]", continuing_subword_prefix="##"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])],
    )
    tok.add_special_tokens(SPECIALS)
    os.makedirs(os.path.join(OUT, "onnx"), exist_ok=True)
    tok.save(os.path.join(OUT, "tokenizer.json"))
    with open(os.path.join(OUT, "tokenizer_config.json"), "w") as f:
        json.dump({"model_max_length": 512, "pad_token": "[PAD]", "cls_token": "[CLS]", "sep_token": "[SEP]"}, f)
    with open(os.path.join(OUT, "config.json"), "w") as f:
        json.dump({"model_type": "bert", "vocab_size": VOCAB, "hidden_size": WIDTH,
                   "max_position_embeddings": 512}, f)

    g = GraphBuilder()
    table = np.random.default_rng(1).normal(0, 0.5, (VOCAB, WIDTH)).astype(np.float32)
    g.op("Gather", [g.const(table, "embeddings.word_embeddings.weight"), "input_ids"], out="last_hidden_state", axis=0)
    dims = ["batch_size", "sequence_length"]
    graph = helper.make_graph(
        g.nodes, "main_graph",
        [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [WIDTH])],
        initializer=g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, "onnx", "model.onnx"))
    print(f"wrote {OUT}: vocabulary {tok.get_vocab_size()}")


if __name__ == "__main__":
    main()
