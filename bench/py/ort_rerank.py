"""Plain onnxruntime + HF tokenizers cross-encoder throughput, for the rerank benchmark.

A worker driven over stdin/stdout, so that the benchmark can interleave it with the other
engines (one pass per engine in turn) instead of running all its repeats back to back.
First stdin line: JSON {model, requests: [{query, documents}], max_length, threads, batch_size}.
It loads the session, runs one warm-up request and prints {"ready": true}. Then each {"run": true}
line scores every request once (batches of batch_size pairs in input order, padded to the batch's
longest) and prints {"seconds": s}. It exits at end of input (bench/lib/harness.mjs jsonLineServer).
"""
import json
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    cfg = json.loads(sys.stdin.readline())
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = cfg["threads"]
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(f"{cfg['model']}/onnx/model.onnx", opts, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    tok = Tokenizer.from_file(f"{cfg['model']}/tokenizer.json")
    tok.enable_truncation(max_length=cfg["max_length"], strategy="only_second")
    tok.enable_padding()
    bs = cfg["batch_size"]

    def run(req):
        pairs = [(req["query"], d) for d in req["documents"]]
        for i in range(0, len(pairs), bs):
            enc = tok.encode_batch(pairs[i : i + bs])
            feed = {
                "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
            }
            if "token_type_ids" in names:
                feed["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
            session.run(None, feed)

    reqs = cfg["requests"]
    run(reqs[0])  # warm-up
    reply({"ready": True})
    for line in sys.stdin:
        if not line.strip() or not json.loads(line).get("run"):
            continue
        t0 = time.perf_counter()
        for r in reqs:
            run(r)
        reply({"seconds": time.perf_counter() - t0})


if __name__ == "__main__":
    main()
