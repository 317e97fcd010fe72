"""Python peers of the vector benchmark: numpy (dot + argpartition) and faiss-cpu IndexFlatIP.

A server on stdin/stdout, so bench/suites/vector.mjs can time these peers in turn with its own engines (the
machine is noisy: a peer timed minutes apart from ragrank is compared with a different machine).

The first stdin line is the job: {"corpus": path, "queries": path, "n", "dim", "nq", "k", "batch",
"engines": [...]}; the files hold raw little-endian float32 rows. The runner loads the corpus, builds each
engine and answers one JSON line: {"versions", "engines": {name: {"build_seconds", "threads"} or
{"skipped"}}}. Then, one JSON line per command:
  {"time": engine, "kind": "single" | "batch", "passes": p} -> {"seconds": s}
      a single pass searches each of the nq queries alone; a batch pass searches the first `batch`
      queries in one call (numpy: one matmul)
  {"ids": engine} -> {"ids": top-k ids of every query}
An empty line or end of input ends the server.
"""
import json
import os
import sys
import time

import numpy as np


def topk_numpy(corpus, q, k):
    scores = corpus @ q
    idx = np.argpartition(-scores, k - 1)[:k]
    return idx[np.argsort(-scores[idx], kind="stable")]


def topk_numpy_batch(corpus, qs, k):
    scores = qs @ corpus.T
    idx = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    part = np.take_along_axis(scores, idx, axis=1)
    order = np.argsort(-part, axis=1, kind="stable")
    return np.take_along_axis(idx, order, axis=1)


def build(job):
    """Returns (info, searchers): searchers[name] = (single(q), batch(qs), ids(qs))."""
    n, dim, k = job["n"], job["dim"], job["k"]
    corpus = np.fromfile(job["corpus"], dtype="<f4", count=n * dim).reshape(n, dim)
    info = {"versions": {"python": sys.version.split()[0], "numpy": np.__version__}, "engines": {}}
    searchers = {}
    if "numpy" in job["engines"]:
        info["engines"]["numpy"] = {
            "threads": os.environ.get("OPENBLAS_NUM_THREADS", "default (all cores for the batch matmul)")
        }
        searchers["numpy"] = (
            lambda q: topk_numpy(corpus, q, k),
            lambda qs: topk_numpy_batch(corpus, qs, k),
            lambda qs: [topk_numpy(corpus, q, k).tolist() for q in qs],
        )
    if "faiss" in job["engines"]:
        try:
            import faiss

            info["versions"]["faiss"] = faiss.__version__
            t0 = time.perf_counter()
            index = faiss.IndexFlatIP(dim)
            index.add(corpus)
            info["engines"]["faiss"] = {"build_seconds": time.perf_counter() - t0, "threads": faiss.omp_get_max_threads()}
            searchers["faiss"] = (
                lambda q: index.search(q[None, :], k),
                lambda qs: index.search(qs, k),
                lambda qs: index.search(qs, k)[1].tolist(),
            )
        except ImportError as e:
            info["engines"]["faiss"] = {"skipped": f"faiss not importable: {e}"}
    return info, searchers


def main():
    job = json.loads(sys.stdin.readline())
    queries = np.fromfile(job["queries"], dtype="<f4", count=job["nq"] * job["dim"]).reshape(job["nq"], job["dim"])
    batch = queries[: job["batch"]]
    info, searchers = build(job)
    print(json.dumps(info), flush=True)
    for line in sys.stdin:
        if not line.strip():
            break
        cmd = json.loads(line)
        if "ids" in cmd:
            print(json.dumps({"ids": searchers[cmd["ids"]][2](queries)}), flush=True)
            continue
        single, batched, _ = searchers[cmd["time"]]
        t0 = time.perf_counter()
        for _ in range(cmd["passes"]):
            if cmd["kind"] == "batch":
                batched(batch)
            else:
                for q in queries:
                    single(q)
        print(json.dumps({"seconds": time.perf_counter() - t0}), flush=True)


if __name__ == "__main__":
    main()
