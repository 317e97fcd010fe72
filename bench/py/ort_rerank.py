"""Plain onnxruntime + HF tokenizers cross-encoder throughput, for the rerank benchmark.

Reads JSON on stdin: {model, requests: [{query, documents}], max_length, threads, repeats,
batch_size}. Batches of batch_size pairs in input order, padded to the batch's longest.
Prints one JSON line: {"pairs_per_second": [per repeat]}.
"""
import json
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def main():
    cfg = json.load(sys.stdin)
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
    n = sum(len(r["documents"]) for r in reqs)
    run(reqs[0])
    rates = []
    for _ in range(cfg["repeats"]):
        t0 = time.perf_counter()
        for r in reqs:
            run(r)
        rates.append(n / (time.perf_counter() - t0))
    print(json.dumps({"pairs_per_second": rates}))


if __name__ == "__main__":
    main()
