#!/usr/bin/env python3
"""Write PyTorch-loadable checkpoints (model.safetensors) of the benchmark models.

sentence-transformers (CrossEncoder, SentenceTransformer) loads a transformers model folder, not an
ONNX file. This reads the weights back out of the fp32 ONNX file that prepare.py wrote (the file every
other engine of the rerank and embedding benchmarks runs), so the PyTorch engine computes with exactly
the same weights:

  bench/.cache/models/minilm-l6-cross-encoder/onnx/model.onnx  ->  .../model.safetensors
  bench/.cache/models/minilm-l6-embedder/onnx/model.onnx       ->  .../model.safetensors

prepare.py names each weight initializer after its transformers state-dict key and stores Linear
weights as [in, out] for x @ W; torch's Linear keeps [out, in], so those are transposed back.
config.json (BertForSequenceClassification with one label, or BertModel) is already in each folder.

Usage: .venv-py/bin/python bench/models/torch_checkpoint.py [MODEL_DIR ...]   (default: both)
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", ".cache", "models")
DEFAULT_DIRS = [os.path.join(MODELS, "minilm-l6-cross-encoder"), os.path.join(MODELS, "minilm-l6-embedder")]


def state_dict(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    out = {}
    for init in model.graph.initializer:
        name = init.name
        if not (name.startswith("bert.") or name.startswith("classifier.")):
            continue  # graph constants (sqrt(2), mask scale, shapes...)
        value = numpy_helper.to_array(init)
        if value.ndim == 2 and ".embeddings." not in name:
            value = value.T  # [in, out] -> torch Linear's [out, in]
        out[name] = np.ascontiguousarray(value, dtype=np.float32)
    return out


def write_checkpoint(folder: str) -> None:
    weights = state_dict(onnx.load(os.path.join(folder, "onnx", "model.onnx")))
    layers = sum(1 for k in weights if k.endswith(".attention.self.query.weight"))
    # embeddings, 16 per layer, then the pooler and the classifier where the graph uses them (the
    # embedder's graph ends at last_hidden_state; transformers' BertModel then starts an unused pooler)
    optional = sum(2 for k in ("bert.pooler.dense.weight", "classifier.weight") if k in weights)
    expected = 5 + 16 * layers + optional
    if layers == 0 or len(weights) != expected:
        raise SystemExit(f"{folder}: found {len(weights)} weight tensors ({layers} layers), expected {expected}")
    save_file(weights, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    print(f"wrote {os.path.join(folder, 'model.safetensors')}: {len(weights)} tensors, {layers} layers")


def main() -> int:
    for folder in sys.argv[1:] or DEFAULT_DIRS:
        write_checkpoint(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
