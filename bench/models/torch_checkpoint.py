#!/usr/bin/env python3
"""Write a PyTorch-loadable checkpoint (model.safetensors) of the benchmark cross-encoder.

sentence-transformers' CrossEncoder loads a transformers model folder, not an ONNX file. This reads
the weights back out of the fp32 ONNX file that prepare.py wrote (the file every other engine of the
rerank benchmark runs), so the PyTorch engine scores with exactly the same weights:

  bench/.cache/models/minilm-l6-cross-encoder/onnx/model.onnx  ->  .../model.safetensors

prepare.py names each weight initializer after its transformers state-dict key and stores Linear
weights as [in, out] for x @ W; torch's Linear keeps [out, in], so those are transposed back.
config.json (BertForSequenceClassification, one label) is already in the folder.

Usage: .venv-bench/bin/python bench/models/torch_checkpoint.py [MODEL_DIR]
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.join(HERE, "..", ".cache", "models", "minilm-l6-cross-encoder")


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


def main() -> int:
    folder = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_DIR
    weights = state_dict(onnx.load(os.path.join(folder, "onnx", "model.onnx")))
    layers = sum(1 for k in weights if k.endswith(".attention.self.query.weight"))
    expected = 5 + 16 * layers + 2 + 2  # embeddings, 16 per layer, pooler, classifier
    if layers == 0 or len(weights) != expected or "classifier.weight" not in weights:
        raise SystemExit(f"{folder}: found {len(weights)} weight tensors ({layers} layers), expected {expected}")
    save_file(weights, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    print(f"wrote {os.path.join(folder, 'model.safetensors')}: {len(weights)} tensors, {layers} layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
