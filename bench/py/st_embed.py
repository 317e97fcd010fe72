"""sentence-transformers SentenceTransformer (PyTorch, CPU) throughput, for the embedding benchmark.

A pass worker (pass_worker.py). Job: {model, texts: [str], max_length, threads, batch_size}. Ready
reply: {"head": the first 8 embeddings}, so the benchmark can check that the engines compute the same
vectors. A pass embeds every text once (normalised). Needs model.safetensors (torch_checkpoint.py).
"""
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder; never the network
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402

from pass_worker import serve  # noqa: E402


def setup(cfg):
    torch.set_num_threads(cfg["threads"])
    torch.set_num_interop_threads(1)
    model = SentenceTransformer(cfg["model"], device="cpu", local_files_only=True)
    model.max_seq_length = cfg["max_length"]
    texts = cfg["texts"]

    def one_pass():
        return model.encode(texts, batch_size=cfg["batch_size"], normalize_embeddings=True, show_progress_bar=False)

    vectors = one_pass()  # warm-up
    return {"head": [[float(x) for x in v] for v in vectors[:8]]}, one_pass


if __name__ == "__main__":
    serve(setup)
