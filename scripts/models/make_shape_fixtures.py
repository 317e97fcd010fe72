#!/usr/bin/env python3
"""Build the inference-check fixtures in fixtures/models/shapes/: graphs whose output is not what their
batch asks for, or not finite. No encoder layers: an embedding table looked up per token, then a reshape.

  fixed-batch-logits    logits [1, 2] whatever the batch: the row of the first input only (an export
                        traced at batch size 1 with the batch axis baked into a Slice / Reshape).
  fixed-batch-hidden    last_hidden_state [1, tokens, 4]: the same, for an embedder.
  seq-width-logits      logits [batch, tokens]: one value per token, so its width follows the input
                        length; a probe of 2 tokens sees a "2-label classifier".
  fixed-seq-hidden      last_hidden_state [batch, 2, 4]: the first two tokens only, so the second axis is not
                        the input length (the probes of 2 and 3 tokens both see [1, 2, 4]).
  nonfinite-logits      logits [batch, 1], the mean over the tokens of a one-column table whose row for
                        "paris" is NaN and for "berlin" +Infinity (every other row finite).
  nonfinite-hidden      last_hidden_state [batch, tokens, 4], the same rows NaN / +Infinity.

Tokenizer and configs are tiny-cross-encoder's (logits) and tiny-embedder's (hidden). Checks (the script
exits non-zero if one fails): every graph passes onnx.checker, and onnxruntime gives the shapes and
values above on a 2-input batch.

Usage:  .venv-py/bin/python scripts/models/make_shape_fixtures.py
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
OUT = os.path.join(MODELS, "shapes")
SEED = 7_2026
DIMS = ["batch_size", "sequence_length"]


def check(ok: bool, what: str) -> None:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


def vocab_of(source: str) -> dict:
    with open(os.path.join(MODELS, source, "tokenizer.json"), encoding="utf-8") as f:
        return json.load(f)["model"]["vocab"]


def table(source: str, width: int, nonfinite: bool) -> np.ndarray:
    vocab = vocab_of(source)
    rng = np.random.default_rng(SEED)
    t = rng.normal(0, 0.5, (len(vocab), width)).astype(np.float32)
    if nonfinite:
        t[vocab["paris"]] = np.nan
        t[vocab["berlin"]] = np.inf
    return t


def save(name: str, source: str, g: GraphBuilder, output: str, out_dims: list) -> str:
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, DIMS) for n in ("input_ids", "attention_mask")]
    outputs = [helper.make_tensor_value_info(output, TensorProto.FLOAT, out_dims)]
    graph = helper.make_graph(g.nodes, "main_graph", inputs, outputs, initializer=g.inits)
    mp = helper.make_model(graph, producer_name="ragrank-make_shape_fixtures", producer_version="1",
                           opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
    mp.doc_string = f"ragrank test model shapes/{name}: random weights, an output of the wrong shape or value."
    onnx.checker.check_model(mp, full_check=True)
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "onnx"))
    for f in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(MODELS, source, f), d)
    path = os.path.join(d, "onnx", "model.onnx")
    onnx.save(mp, path)
    return path


def lookup(g: GraphBuilder, t: np.ndarray) -> str:
    """[batch, tokens, width]"""
    return g.op("Gather", [g.const(t, "embeddings.word_embeddings.weight"), "input_ids"], "word", axis=0)


def first(g: GraphBuilder, x: str, axis: int, n: int) -> str:
    ints = lambda v: g.const([v], dtype=np.int64)  # noqa: E731
    return g.op("Slice", [x, ints(0), ints(n), ints(axis)], "slice")


def mean_tokens(g: GraphBuilder, x: str) -> str:
    return g.op("ReduceMean", [x], "mean", axes=[1], keepdims=0)


def build() -> dict:
    paths = {}
    g = GraphBuilder()
    first(g, mean_tokens(g, lookup(g, table("tiny-cross-encoder", 2, False))), 0, 1)
    g.nodes[-1].output[0] = "logits"
    paths["fixed-batch-logits"] = save("fixed-batch-logits", "tiny-cross-encoder", g, "logits", [1, 2])

    g = GraphBuilder()
    first(g, lookup(g, table("tiny-embedder", 4, False)), 0, 1)
    g.nodes[-1].output[0] = "last_hidden_state"
    paths["fixed-batch-hidden"] = save("fixed-batch-hidden", "tiny-embedder", g, "last_hidden_state",
                                       [1, "sequence_length", 4])

    g = GraphBuilder()
    g.op("Squeeze", [lookup(g, table("tiny-cross-encoder", 1, False)), g.const([2], dtype=np.int64)], out="logits")
    paths["seq-width-logits"] = save("seq-width-logits", "tiny-cross-encoder", g, "logits", DIMS)

    g = GraphBuilder()
    first(g, lookup(g, table("tiny-embedder", 4, False)), 1, 2)
    g.nodes[-1].output[0] = "last_hidden_state"
    paths["fixed-seq-hidden"] = save("fixed-seq-hidden", "tiny-embedder", g, "last_hidden_state",
                                     ["batch_size", 2, 4])

    g = GraphBuilder()
    mean_tokens(g, lookup(g, table("tiny-cross-encoder", 1, True)))
    g.nodes[-1].output[0] = "logits"
    paths["nonfinite-logits"] = save("nonfinite-logits", "tiny-cross-encoder", g, "logits", ["batch_size", 1])

    g = GraphBuilder()
    g.op("Identity", [lookup(g, table("tiny-embedder", 4, True))], out="last_hidden_state")
    paths["nonfinite-hidden"] = save("nonfinite-hidden", "tiny-embedder", g, "last_hidden_state", DIMS + [4])
    return paths


def main() -> None:
    paths = build()
    def feed(source: str) -> dict:
        v = vocab_of(source)
        cls, sep, pad = v["[CLS]"], v["[SEP]"], v["[PAD]"]
        ids = np.array([[cls, v["capital"], sep, pad, pad], [cls, v["paris"], v["berlin"], sep, pad]], np.int64)
        return {"input_ids": ids, "attention_mask": (ids != pad).astype(np.int64)}

    want = {
        "fixed-batch-logits": (1, 2),
        "fixed-batch-hidden": (1, 5, 4),
        "seq-width-logits": (2, 5),
        "fixed-seq-hidden": (2, 2, 4),
        "nonfinite-logits": (2, 1),
        "nonfinite-hidden": (2, 5, 4),
    }
    opts = ort.SessionOptions()
    opts.log_severity_level = 3  # the declared fixed dimensions are the point: no shape-merge warnings
    for name, path in paths.items():
        source = "tiny-cross-encoder" if name.endswith("logits") else "tiny-embedder"
        out = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"]).run(None, feed(source))[0]
        check(out.shape == want[name], f"{name}: a batch of 2 x 5 tokens gives {out.shape}")
        finite = np.isfinite(out)
        if name.startswith("nonfinite"):
            check(bool(finite[0].all()) and np.isnan(out[1]).any(), f"{name}: row 0 finite, row 1 NaN")
        else:
            check(bool(finite.all()), f"{name}: finite")
        check(os.path.getsize(path) < 20_000, f"{name}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
