#!/usr/bin/env python3
"""tantivy as the filtered-search peer of bench/suites/filters.mjs: BM25 over a text field with a tenant filter (a
raw-tokenized keyword field, its term in a zero-score filter clause) and a year range (an indexed fast integer field),
the same cases as ragrank's, timed in this process around each `searcher.search` call.

    .venv-bench-peers/bin/python bench/py/filter_peers.py CONFIG.json

CONFIG: corpus (a JSONL file of {"text", "tenant", "year"}), queries (list of strings), tenants (the tenant of each
query, per round and query: [[...], ...]), cases (names), rounds, k.
Output (one JSON line): version, index_seconds, and per case the p50 and p99 (ms) of each round.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import time

import tantivy

WORD = re.compile(r"[A-Za-z0-9]+")


def main() -> None:
    cfg = json.load(open(sys.argv[1]))
    k = cfg.get("k", 10)
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("body", stored=False, tokenizer_name="default", index_option="freq")
    sb.add_text_field("tenant", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_integer_field("year", stored=False, indexed=True, fast=True)
    schema = sb.build()
    workdir = tempfile.mkdtemp(prefix="ragrank-bench-tantivy-filters-")
    try:
        t0 = time.perf_counter()
        index = tantivy.Index(schema, path=workdir)
        writer = index.writer(heap_size=1_500_000_000, num_threads=1)
        with open(cfg["corpus"]) as f:
            for line in f:
                d = json.loads(line)
                writer.add_document(tantivy.Document(body=d["text"], tenant=d["tenant"], year=d["year"]))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        index_seconds = time.perf_counter() - t0
        searcher = index.searcher()
        Q, Occur = tantivy.Query, tantivy.Occur
        texts = []
        for q in cfg["queries"]:
            terms = [Q.term_query(schema, "body", t.lower()) for t in dict.fromkeys(WORD.findall(q))]
            texts.append(Q.boolean_query([(Occur.Should, t) for t in terms]))

        def year_range(lo, hi):
            return Q.range_query(schema, "year", tantivy.FieldType.Integer, lo, hi, True, hi is None)

        def filtered(text, case, tenant):
            if case == "none":
                return text
            clauses = [(Occur.Must, text)]
            if case in ("tenant", "tenant + year"):
                clauses.append((Occur.Must, Q.const_score_query(Q.term_query(schema, "tenant", tenant), 0.0)))
            if case == "tenant + year":
                clauses.append((Occur.Must, Q.const_score_query(year_range(1990, None), 0.0)))
            if case == "year range":
                clauses.append((Occur.Must, Q.const_score_query(year_range(1980, 2000), 0.0)))
            return Q.boolean_query(clauses)

        out = {"version": getattr(tantivy, "__version__", "0.27"), "index_seconds": index_seconds, "cases": {}}
        for case in cfg["cases"]:
            out["cases"][case] = {"p50": [], "p99": []}
        n = cfg["n_queries"]
        for r in range(cfg["rounds"]):
            for case in cfg["cases"]:
                ms = []
                for q in range(n):
                    query = filtered(texts[q % len(texts)], case, cfg["tenants"][r][q])
                    t = time.perf_counter()
                    searcher.search(query, limit=k)
                    ms.append((time.perf_counter() - t) * 1000)
                ms.sort()
                out["cases"][case]["p50"].append(ms[len(ms) // 2])
                out["cases"][case]["p99"].append(ms[min(len(ms) - 1, int(len(ms) * 0.99))])
        print(json.dumps(out))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
