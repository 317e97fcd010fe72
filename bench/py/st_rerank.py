"""sentence-transformers CrossEncoder (PyTorch, CPU) throughput, for the rerank benchmark.

The same worker protocol as ort_rerank.py (bench/lib/harness.mjs jsonLineServer): the first stdin
line is JSON {model, requests: [{query, documents}], max_length, threads, batch_size}; the worker
loads the model, scores requests[0] once as a warm-up and prints {"ready": true, "scores": [...]}
(raw logits of that request, so the benchmark can check that the engines run the same model). Each
{"run": true} line then scores every request once with CrossEncoder.predict and prints {"seconds": s}.

The model folder needs model.safetensors next to its ONNX files: bench/models/torch_checkpoint.py
writes it from onnx/model.onnx. Install: bench/py/requirements-st.txt (PyTorch from PyPI).
"""
import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder; never the network
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from sentence_transformers import CrossEncoder  # noqa: E402


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    cfg = json.loads(sys.stdin.readline())
    torch.set_num_threads(cfg["threads"])
    torch.set_num_interop_threads(1)
    model = CrossEncoder(cfg["model"], device="cpu", max_length=cfg["max_length"], local_files_only=True)
    bs = cfg["batch_size"]
    identity = torch.nn.Identity()

    def run(req):
        pairs = [(req["query"], d) for d in req["documents"]]
        return model.predict(pairs, batch_size=bs, activation_fn=identity, show_progress_bar=False)

    reqs = cfg["requests"]
    scores = run(reqs[0])  # warm-up
    reply({"ready": True, "scores": [float(s) for s in scores.reshape(-1)]})
    for line in sys.stdin:
        if not line.strip() or not json.loads(line).get("run"):
            continue
        t0 = time.perf_counter()
        for r in reqs:
            run(r)
        reply({"seconds": time.perf_counter() - t0})


if __name__ == "__main__":
    main()
