"""sentence-transformers CrossEncoder (PyTorch, CPU) throughput, for the rerank benchmark.

A pass worker (pass_worker.py). Job: {model, requests: [{query, documents}], max_length, threads,
batch_size}. Ready reply: {"scores": raw logits of requests[0]}, so the benchmark can check that the
engines run the same model. A pass scores every request once with CrossEncoder.predict.
The model folder needs model.safetensors beside its ONNX files (bench/models/torch_checkpoint.py).
Install: bench/py/requirements-st.txt (PyTorch from PyPI).
"""
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder; never the network
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from sentence_transformers import CrossEncoder  # noqa: E402

from pass_worker import serve  # noqa: E402


def setup(cfg):
    torch.set_num_threads(cfg["threads"])
    torch.set_num_interop_threads(1)
    model = CrossEncoder(cfg["model"], device="cpu", max_length=cfg["max_length"], local_files_only=True)
    identity = torch.nn.Identity()

    def run(req):
        pairs = [(req["query"], d) for d in req["documents"]]
        return model.predict(pairs, batch_size=cfg["batch_size"], activation_fn=identity, show_progress_bar=False)

    reqs = cfg["requests"]
    scores = run(reqs[0])  # warm-up

    def one_pass():
        for r in reqs:
            run(r)

    return {"scores": [float(s) for s in scores.reshape(-1)]}, one_pass


if __name__ == "__main__":
    serve(setup)
