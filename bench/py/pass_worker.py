"""The protocol of the benchmark's pass workers (ort_rerank.py, st_rerank.py, st_embed.py), driven by
bench/lib/harness.mjs jsonLineServer so that the benchmark can time them in turn with its own engines.

The first stdin line is the job as JSON. `setup(job)` loads the engine, warms it up and returns
(extra, one_pass); the worker prints {"ready": true, **extra}. Then every {"run": true} line runs
one_pass() once and prints {"seconds": s}. End of input ends the worker.
"""
import json
import sys
import time


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def serve(setup):
    extra, one_pass = setup(json.loads(sys.stdin.readline()))
    reply({"ready": True, **extra})
    for line in sys.stdin:
        if not line.strip() or not json.loads(line).get("run"):
            continue
        t0 = time.perf_counter()
        one_pass()
        reply({"seconds": time.perf_counter() - t0})
