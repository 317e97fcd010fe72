"""Plain onnxruntime + HF tokenizers cross-encoder throughput, for the rerank benchmark.

A pass worker (pass_worker.py). Job: {model, requests: [{query, documents}], max_length, threads,
batch_size}. A pass scores every request once: batches of batch_size pairs in input order, padded to
the batch's longest pair.
"""
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from pass_worker import serve


def setup(cfg):
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

    def one_pass():
        for r in reqs:
            run(r)

    return {}, one_pass


if __name__ == "__main__":
    serve(setup)
