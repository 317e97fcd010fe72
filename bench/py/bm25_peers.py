#!/usr/bin/env python3
"""The strongest BM25 engines as benchmark peers: tantivy (Rust's Lucene, Python package `tantivy`) and PISA
(block-max WAND / MaxScore over compressed indexes, through `pyterrier-pisa`).

Run by bench/suites/bm25.mjs with the same data file as bm25s_runner.py, fed through stdin:

    .venv-bench-peers/bin/python bench/py/bm25_peers.py -     < {"engine": ..., params..., "queries", "corpus"}

Config: engine "tantivy" | "pisa"; k (top-k, default 10); k1, b (PISA only: tantivy's BM25 has k1=1.2, b=0.75
built in); repeats (timed passes over all queries); batch_threads (threads of the batch run, default 2);
algorithms (PISA: the query algorithms to try, the fastest single-thread one is reported); return_results.
corpus is [[token, ...], ...] and queries [[token, ...], ...]: every engine gets the tokens joined by single
spaces, split again on whitespace (tantivy's "whitespace" tokenizer; PISA with stemmer and stopwords off).

Output (one JSON line): versions, index_seconds, index_bytes, n_segments (tantivy), single_seconds (per repeat,
all queries on one thread), batch_seconds (all queries on batch_threads threads), algorithm (PISA), results.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor


def dir_bytes(path: str, skip_suffix: str = "") -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            if not (skip_suffix and f.endswith(skip_suffix)):
                total += os.path.getsize(os.path.join(root, f))
    return total


def run_tantivy(cfg, corpus, queries, workdir):
    import tantivy

    k = cfg.get("k", 10)
    sb = tantivy.SchemaBuilder()
    # freq only (no positions): BM25 needs term frequencies, and positions would inflate the index bytes
    sb.add_text_field("body", stored=False, tokenizer_name="whitespace", index_option="freq")
    sb.add_unsigned_field("id", stored=True)  # only to map hits back (untimed); its .store files are not counted
    schema = sb.build()
    t0 = time.perf_counter()
    index = tantivy.Index(schema, path=workdir)
    # one indexing thread with a large heap: one segment, as ragrank's single index (more threads = more segments)
    writer = index.writer(heap_size=cfg.get("heap_bytes", 1_500_000_000), num_threads=cfg.get("index_threads", 1))
    for i, toks in enumerate(corpus):
        writer.add_document(tantivy.Document(id=i, body=" ".join(toks)))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    index_seconds = time.perf_counter() - t0
    searcher = index.searcher()

    def make_query(toks):
        # a disjunction of term queries: the same OR semantics as ragrank, without the query parser's cost
        terms = [tantivy.Query.term_query(schema, "body", t) for t in dict.fromkeys(toks)]
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in terms])

    built = [make_query(q) for q in queries]

    def search(q):
        return searcher.search(q, limit=k).hits

    return {
        "versions": {"tantivy": getattr(tantivy, "__version__", "0.27")},
        "index_seconds": index_seconds,
        "index_bytes": dir_bytes(workdir, ".store"),
        "n_segments": searcher.num_segments,
        "search": search,
        "queries": built,
        "ids": lambda hits: [[searcher.doc(addr)["id"][0], score] for score, addr in hits],
    }


def run_pisa(cfg, corpus, queries, workdir):
    """PISA's own indexer on the tokens joined by spaces ("text"), or its pre-tokenized path ("toks": term -> count
    per document, for tokens PISA's English tokenizer would split or drop, e.g. Hangul bigrams)."""
    import pyterrier_pisa
    from pyterrier_pisa import PisaIndex

    k = cfg.get("k", 10)
    mode = cfg.get("pisa_input", "text")
    path = os.path.join(workdir, "pisa")
    t0 = time.perf_counter()
    index = PisaIndex(path, stemmer="none", stops="none", threads=cfg.get("index_threads", 1))
    if mode == "toks":
        # scale 1: the stored values are the term frequencies and their sum the document length, as in BM25
        docs = ({"docno": str(i), "toks": dict(Counter(toks))} for i, toks in enumerate(corpus))
        index.toks_indexer(scale=1.0).index(docs)
        topics = {"query_toks": [dict.fromkeys(q, 1) for q in queries]}
    else:
        index.index({"docno": str(i), "text": " ".join(toks)} for i, toks in enumerate(corpus))
        topics = {"query": [" ".join(q) for q in queries]}
    index_seconds = time.perf_counter() - t0
    return {
        "versions": {"pyterrier-pisa": getattr(pyterrier_pisa, "__version__", "0.4.9")},
        "pisa_input": mode,
        "index_seconds": index_seconds,
        "_index": index,
        "_topics": topics,
        "_k": k,
    }


_RETRIEVERS = {}


def pisa_retrieve(index, topics, k, k1, b, algorithm, threads, first=None):
    """Seconds of one transform() of all queries (the retriever and its context are made once, untimed)."""
    import pandas as pd

    n = first or len(next(iter(topics.values())))
    key = (algorithm, threads, n)
    if key not in _RETRIEVERS:
        # toks_scale 1: pre-tokenized query terms keep weight 1 (each distinct term once, as in ragrank)
        retr = index.bm25(k1=k1, b=b, num_results=k, threads=threads, query_algorithm=algorithm, verbose=False, toks_scale=1.0)
        frame = pd.DataFrame({"qid": [str(i) for i in range(n)], **{c: v[:n] for c, v in topics.items()}})
        retr.transform(frame.iloc[:1])  # opens the index (retrieval context) outside the timing
        _RETRIEVERS[key] = (retr, frame)
    retr, frame = _RETRIEVERS[key]
    t0 = time.perf_counter()
    res = retr.transform(frame)
    return time.perf_counter() - t0, res


def main():
    cfg = json.load(sys.stdin if sys.argv[1:] == ["-"] else open(sys.argv[1], encoding="utf-8"))
    engine = cfg["engine"]
    corpus, queries = cfg.pop("corpus"), cfg["queries"]
    repeats = cfg.get("repeats", 3)
    batch_threads = cfg.get("batch_threads", 2)
    workdir = tempfile.mkdtemp(prefix=f"ragrank-bench-{engine}-")
    try:
        if engine == "tantivy":
            r = run_tantivy(cfg, corpus, queries, workdir)
            search, built = r.pop("search"), r.pop("queries")
            ids = r.pop("ids")
            for q in built:  # warm-up pass
                search(q)
            single = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                for q in built:
                    search(q)
                single.append(time.perf_counter() - t0)
            batch = []
            with ThreadPoolExecutor(batch_threads) as pool:  # tantivy's search releases the GIL
                list(pool.map(search, built))
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    list(pool.map(search, built, chunksize=max(1, len(built) // (8 * batch_threads))))
                    batch.append(time.perf_counter() - t0)
            r.update(single_seconds=single, batch_seconds=batch)
            if cfg.get("return_results"):
                r["results"] = [ids(search(q)) for q in built[: cfg.get("n_result_queries", len(built))]]
        elif engine == "pisa":
            r = run_pisa(cfg, corpus, queries, workdir)
            index, topics, k = r.pop("_index"), r.pop("_topics"), r.pop("_k")
            k1, b = cfg.get("k1", 1.5), cfg.get("b", 0.75)
            # The first retriever computes PISA's score upper bounds / block-max data: part of the index build.
            t0 = time.perf_counter()
            pisa_retrieve(index, topics, k, k1, b, "block_max_wand", 1, first=1)
            r["index_seconds"] += time.perf_counter() - t0
            r["index_bytes"] = dir_bytes(os.path.join(workdir, "pisa"))
            tried = {}
            for alg in cfg.get("algorithms", ["block_max_wand", "maxscore", "block_max_maxscore", "wand"]):
                try:
                    pisa_retrieve(index, topics, k, k1, b, alg, 1)  # warm-up
                    tried[alg] = min(pisa_retrieve(index, topics, k, k1, b, alg, 1)[0] for _ in range(repeats))
                except Exception as e:  # an algorithm this build lacks
                    print(f"bm25_peers: pisa {alg}: {e}", file=sys.stderr)
            if not tried:
                raise SystemExit("bm25_peers: no PISA query algorithm ran")
            best = min(tried, key=tried.get)
            single = [pisa_retrieve(index, topics, k, k1, b, best, 1)[0] for _ in range(repeats)]
            pisa_retrieve(index, topics, k, k1, b, best, batch_threads)  # warm-up
            batch = [pisa_retrieve(index, topics, k, k1, b, best, batch_threads)[0] for _ in range(repeats)]
            r.update(algorithm=best, algorithm_seconds=tried, single_seconds=single, batch_seconds=batch)
            if cfg.get("return_results"):
                _, res = pisa_retrieve(index, topics, k, k1, b, best, 1)
                n = cfg.get("n_result_queries", len(queries))
                per = [[] for _ in range(n)]
                for qid, docno, score in zip(res["qid"], res["docno"], res["score"]):
                    qi = int(qid)
                    if qi < n:
                        per[qi].append([int(docno), float(score)])
                r["results"] = [sorted(p, key=lambda h: -h[1]) for p in per]
        else:
            raise SystemExit(f"bm25_peers: unknown engine {engine!r}")
        r["versions"]["python"] = sys.version.split()[0]
        r["n_queries"] = len(queries)
        r["n_docs"] = len(corpus)
        print(json.dumps(r))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
