"""sentence-transformers SentenceTransformer (PyTorch, CPU) throughput, for the embedding benchmark.

The worker protocol of st_rerank.py (bench/lib/harness.mjs jsonLineServer): the first stdin line is
JSON {model, texts: [str], max_length, threads, batch_size}; the worker loads the model, embeds the
texts once as a warm-up and prints {"ready": true, "head": [[...], ...]} (the first embeddings, so the
benchmark can check that the engines compute the same vectors). Each {"run": true} line then embeds
every text once and prints {"seconds": s}. Needs model.safetensors (bench/models/torch_checkpoint.py).
"""
import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder; never the network
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    cfg = json.loads(sys.stdin.readline())
    torch.set_num_threads(cfg["threads"])
    torch.set_num_interop_threads(1)
    model = SentenceTransformer(cfg["model"], device="cpu", local_files_only=True)
    model.max_seq_length = cfg["max_length"]
    texts, bs = cfg["texts"], cfg["batch_size"]

    def run():
        return model.encode(texts, batch_size=bs, normalize_embeddings=True, show_progress_bar=False)

    vectors = run()  # warm-up
    reply({"ready": True, "head": [[float(x) for x in v] for v in vectors[:8]]})
    for line in sys.stdin:
        if not line.strip() or not json.loads(line).get("run"):
            continue
        t0 = time.perf_counter()
        run()
        reply({"seconds": time.perf_counter() - t0})


if __name__ == "__main__":
    main()
