"""Python peers of the vector benchmark: numpy (dot + argpartition) and faiss-cpu IndexFlatIP.

Reads a job as JSON on stdin: {"corpus": path, "queries": path, "n", "dim", "nq", "k", "batch",
"min_seconds", "repeats", "engines": [...]}. The files hold raw little-endian float32 rows. Prints one
JSON line: per engine, single-query and batch throughput (queries/s per repeat), build seconds, top-k ids
of every query (for the recall check), versions, threads.
"""
import json
import os
import sys
import time

import numpy as np


def throughput(fn, n_items, repeats, min_seconds):
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-9)
    passes = max(1, min(1000, int(np.ceil(min_seconds / one))))
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(passes):
            fn()
        rates.append(n_items * passes / (time.perf_counter() - t0))
    return rates


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


def main():
    job = json.load(sys.stdin)
    n, dim, nq, k, b = job["n"], job["dim"], job["nq"], job["k"], job["batch"]
    corpus = np.fromfile(job["corpus"], dtype="<f4", count=n * dim).reshape(n, dim)
    queries = np.fromfile(job["queries"], dtype="<f4", count=nq * dim).reshape(nq, dim)
    out = {"versions": {"python": sys.version.split()[0], "numpy": np.__version__}, "engines": {}}
    rep, secs = job["repeats"], job["min_seconds"]

    if "numpy" in job["engines"]:
        res = {"threads": os.environ.get("OPENBLAS_NUM_THREADS", "default (all cores for the batch matmul)")}
        i = [0]

        def single():
            topk_numpy(corpus, queries[i[0] % nq], k)
            i[0] += 1

        res["single"] = throughput(single, 1, rep, secs)
        res["batch"] = throughput(lambda: topk_numpy_batch(corpus, queries[:b], k), b, rep, secs)
        res["ids"] = [topk_numpy(corpus, queries[j], k).tolist() for j in range(nq)]
        out["engines"]["numpy"] = res

    if "faiss" in job["engines"]:
        try:
            import faiss

            out["versions"]["faiss"] = faiss.__version__
            t0 = time.perf_counter()
            index = faiss.IndexFlatIP(dim)
            index.add(corpus)
            res = {"build_seconds": time.perf_counter() - t0, "threads": faiss.omp_get_max_threads()}
            i = [0]

            def single():
                index.search(queries[i[0] % nq : i[0] % nq + 1], k)
                i[0] += 1

            res["single"] = throughput(single, 1, rep, secs)
            res["batch"] = throughput(lambda: index.search(queries[:b], k), b, rep, secs)
            res["ids"] = index.search(queries, k)[1].tolist()
            out["engines"]["faiss"] = res
            del index
        except ImportError as e:
            out["engines"]["faiss"] = {"skipped": f"faiss not importable: {e}"}

    print(json.dumps(out))


if __name__ == "__main__":
    main()
