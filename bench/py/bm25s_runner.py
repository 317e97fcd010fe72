#!/usr/bin/env python3
"""Run bm25s on a corpus and queries described by a JSON file; print JSON results.

Used by the Node benchmark / evaluation scripts through a subprocess:

    .venv-py/bin/python bench/py/bm25s_runner.py CONFIG.json   (or "-" to read the config from stdin)

Config (JSON object):
  corpus        [[token, ...], ...]  pre-tokenized documents, indexed exactly as given
  texts         [str, ...]           raw documents, tokenized with bm25s.tokenize (instead of corpus)
  queries       [[token, ...], ...]  pre-tokenized queries, used exactly as given
  query_texts   [str, ...]           raw queries, tokenized with bm25s.tokenize (instead of queries)
  tokenize      {"stopwords": "en" | null, "stemmer": "english" | null}
                                     only used for texts / query_texts; default {"stopwords": "en", "stemmer": null}.
                                     stopwords accepts any name bm25s knows ("en", "english", "ko", ...);
                                     stemmer is a PyStemmer algorithm name ("english" = Snowball Porter2).
  method        "lucene" | "robertson" | "atire" | "bm25l" | "bm25+"     (default "lucene")
  k1, b, delta  floats (defaults 1.5, 0.75, 0.5, the bm25s defaults)
  k             results per query (default 10; clamped to the number of documents, bm25s refuses k > N)
  repeats       timed repetitions of index + retrieve (default 3)
  threads       n_threads passed to bm25s retrieve (default 1; 0 = bm25s's no-pool sequential path,
                -1 = all CPUs)
  backend       "numpy" (default) or "numba" (only if numba is installed; never required)
  warmup        run one untimed index + retrieve before timing (default: true for numba, false otherwise)
  return_results  include "results" (default false)
  dump_tokens     include "tokens" (default false)
  drop_zero_scores  drop hits whose score is exactly 0 from "results" (default false: bm25s pads the top k
                    with zero-score documents when fewer than k documents match)

Output (stdout, one JSON object):
  bm25s_version, backend, method, k1, b, delta, k, threads, n_docs, n_queries,
  index_seconds          per repeat: corpus tokenization (texts only) + BM25() + index()
  query_seconds          per repeat: query tokenization (query_texts only) + retrieve() for all queries
  corpus_tokenize_seconds / query_tokenize_seconds   per repeat, the tokenization part of the above
                                                    (only present for texts / query_texts)
  queries_per_second_median   n_queries / median(query_seconds)
  results       [[{"id": doc index, "score": float}], ...]  from the last repeat, best first
  tokens        {"corpus": [[str]], "queries": [[str]]}  the exact tokens bm25s indexed / queried

JSON reading and writing are not timed. Progress bars are disabled; anything bm25s prints goes to stderr.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import time

os.environ.setdefault("DISABLE_TQDM", "1")

import numpy as np  # noqa: E402
import bm25s  # noqa: E402
from bm25s.tokenization import convert_tokenized_to_string_list  # noqa: E402

METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")


def fail(msg: str) -> None:
    print(f"bm25s_runner: {msg}", file=sys.stderr)
    sys.exit(2)


def load_config(path: str) -> dict:
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check_token_lists(name: str, lists) -> list[list[str]]:
    if not isinstance(lists, list) or not all(isinstance(x, list) for x in lists):
        fail(f"{name} must be a list of token lists")
    for i, toks in enumerate(lists):
        for t in toks:
            if not isinstance(t, str):
                fail(f"{name}[{i}] contains a non-string token {t!r}")
    return lists


def make_stemmer(name):
    if name is None:
        return None
    try:
        import Stemmer  # PyStemmer
    except ImportError:
        fail("PyStemmer is not installed (pip install PyStemmer)")
    return Stemmer.Stemmer(name)


def tokenize(texts, stopwords, stemmer):
    return bm25s.tokenize(
        texts, lower=True, stopwords=stopwords, stemmer=stemmer, return_ids=True, show_progress=False
    )


def short_float(x) -> float:
    # shortest decimal that round-trips the float32 score
    return float(str(np.float32(x)))


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2 if len(argv) != 2 else 0
    cfg = load_config(argv[1])

    has_corpus, has_texts = "corpus" in cfg, "texts" in cfg
    has_queries, has_qtexts = "queries" in cfg, "query_texts" in cfg
    if has_corpus == has_texts:
        fail('give exactly one of "corpus" (token lists) or "texts" (strings)')
    if has_queries == has_qtexts:
        fail('give exactly one of "queries" (token lists) or "query_texts" (strings)')

    corpus_tokens = check_token_lists("corpus", cfg["corpus"]) if has_corpus else None
    query_tokens = check_token_lists("queries", cfg["queries"]) if has_queries else None
    texts = cfg.get("texts")
    query_texts = cfg.get("query_texts")
    if texts is not None and not all(isinstance(t, str) for t in texts):
        fail("texts must be a list of strings")
    if query_texts is not None and not all(isinstance(t, str) for t in query_texts):
        fail("query_texts must be a list of strings")

    tok_cfg = cfg.get("tokenize") or {}
    stopwords = tok_cfg.get("stopwords", "en")
    stemmer = make_stemmer(tok_cfg.get("stemmer")) if (texts is not None or query_texts is not None) else None

    method = cfg.get("method", "lucene")
    if method not in METHODS:
        fail(f"method must be one of {METHODS}")
    k1 = float(cfg.get("k1", 1.5))
    b = float(cfg.get("b", 0.75))
    delta = float(cfg.get("delta", 0.5))
    repeats = int(cfg.get("repeats", 3))
    if repeats < 1:
        fail("repeats must be >= 1")
    threads = int(cfg.get("threads", 1))
    backend = cfg.get("backend", "numpy")
    if backend not in ("numpy", "numba"):
        fail('backend must be "numpy" or "numba"')
    if backend == "numba":
        try:
            import numba  # noqa: F401
        except ImportError:
            fail('backend "numba" requested but numba is not installed')
    warmup = bool(cfg.get("warmup", backend == "numba"))
    return_results = bool(cfg.get("return_results", False))
    dump_tokens = bool(cfg.get("dump_tokens", False))
    drop_zero = bool(cfg.get("drop_zero_scores", False))

    n_docs = len(corpus_tokens) if corpus_tokens is not None else len(texts)
    n_queries = len(query_tokens) if query_tokens is not None else len(query_texts)
    if n_docs == 0:
        fail("the corpus is empty")
    k = min(int(cfg.get("k", 10)), n_docs)

    def build():
        t0 = time.perf_counter()
        corpus_in = corpus_tokens if corpus_tokens is not None else tokenize(texts, stopwords, stemmer)
        t1 = time.perf_counter()
        retriever = bm25s.BM25(method=method, k1=k1, b=b, delta=delta, backend=backend)
        retriever.index(corpus_in, show_progress=False)
        t2 = time.perf_counter()
        return retriever, corpus_in, t2 - t0, t1 - t0

    def search(retriever):
        t0 = time.perf_counter()
        q_in = query_tokens if query_tokens is not None else tokenize(query_texts, stopwords, stemmer)
        t1 = time.perf_counter()
        if n_queries == 0:
            docs = np.zeros((0, k), dtype=np.int64)
            scores = np.zeros((0, k), dtype=np.float32)
        elif backend == "numba":
            # bm25s's numba path rejects the whole batch when the FIRST query has no tokens
            # (it sniffs the type from queries[0][0]); put a non-empty query first and undo
            # the permutation afterwards. Queries are scored independently, so nothing changes.
            ql = q_in if query_tokens is not None else convert_tokenized_to_string_list(q_in)
            first = next((i for i, q in enumerate(ql) if q), None)
            if first is None:
                fail("numba backend: every query is empty after tokenization")
            perm = [first] + [i for i in range(len(ql)) if i != first]
            d, s = retriever.retrieve([ql[i] for i in perm], k=k, n_threads=threads, show_progress=False)
            inv = np.empty(len(perm), dtype=np.int64)
            inv[perm] = np.arange(len(perm))
            docs, scores = np.asarray(d)[inv], np.asarray(s)[inv]
        else:
            docs, scores = retriever.retrieve(q_in, k=k, n_threads=threads, show_progress=False)
        t2 = time.perf_counter()
        return q_in, docs, scores, t2 - t0, t1 - t0

    index_s, ctok_s, query_s, qtok_s = [], [], [], []
    with contextlib.redirect_stdout(sys.stderr):
        if warmup:
            retriever, _, _, _ = build()
            search(retriever)
        for _ in range(repeats):
            retriever = None
            retriever, corpus_in, t_index, t_ctok = build()
            q_in, docs, scores, t_query, t_qtok = search(retriever)
            index_s.append(t_index)
            ctok_s.append(t_ctok)
            query_s.append(t_query)
            qtok_s.append(t_qtok)

    med = statistics.median(query_s)
    out = {
        "bm25s_version": bm25s.__version__,
        "backend": backend,
        "method": method,
        "k1": k1,
        "b": b,
        "delta": delta,
        "k": k,
        "threads": threads,
        "n_docs": n_docs,
        "n_queries": n_queries,
        "index_seconds": index_s,
        "query_seconds": query_s,
        "queries_per_second_median": (n_queries / med) if med > 0 else None,
    }
    if texts is not None:
        out["corpus_tokenize_seconds"] = ctok_s
    if query_texts is not None:
        out["query_tokenize_seconds"] = qtok_s

    if return_results:
        results = []
        for row_d, row_s in zip(np.asarray(docs).tolist(), np.asarray(scores, dtype=np.float32)):
            hits = []
            for d, s in zip(row_d, row_s):
                if drop_zero and s == 0:
                    continue
                hits.append({"id": int(d), "score": short_float(s)})
            results.append(hits)
        out["results"] = results

    if dump_tokens:
        c = corpus_in if corpus_tokens is not None else convert_tokenized_to_string_list(corpus_in)
        q = q_in if query_tokens is not None else convert_tokenized_to_string_list(q_in)
        out["tokens"] = {"corpus": c, "queries": q}

    json.dump(out, sys.stdout, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
