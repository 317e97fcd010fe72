"""Haystack side of the `split` benchmark (bench/suites/split.mjs).

Reads one JSON object on stdin: {"docs": [{"id", "text"}], "blockSizes": [...], "splitBy": "word",
"overlap": 0, "repeats": 3}. Times HierarchicalDocumentSplitter.run over all documents per repeat and
prints one JSON line: {"seconds": [...], "nodes": N, "digest": sha256 hex, "haystack": version}.
The digest covers, per output node in order: content, level, block size and parent position,
exactly as bench/suites/split.mjs computes it for ragrank, so equal digests mean identical trees.
"""
import hashlib
import json
import sys
import time
from importlib.metadata import version

from haystack import Document
from haystack.components.preprocessors import HierarchicalDocumentSplitter


def digest(nodes):
    position = {d.id: i for i, d in enumerate(nodes)}
    h = hashlib.sha256()
    for d in nodes:
        parent = d.meta["__parent_id"]
        h.update(d.content.encode("utf-8"))
        tail = f"\0{d.meta['__level']}\0{d.meta['__block_size']}\0{-1 if parent is None else position[parent]}\n"
        h.update(tail.encode("utf-8"))
    return h.hexdigest()


def main():
    job = json.load(sys.stdin)
    splitter = HierarchicalDocumentSplitter(
        block_sizes=set(job["blockSizes"]), split_overlap=job.get("overlap", 0), split_by=job["splitBy"]
    )
    seconds, out = [], None
    for _ in range(job.get("repeats", 1)):
        docs = [Document(id=d["id"], content=d["text"]) for d in job["docs"]]
        t0 = time.perf_counter()
        out = splitter.run(docs)["documents"]
        seconds.append(time.perf_counter() - t0)
    print(json.dumps({"seconds": seconds, "nodes": len(out), "digest": digest(out), "haystack": version("haystack-ai")}))


if __name__ == "__main__":
    main()
