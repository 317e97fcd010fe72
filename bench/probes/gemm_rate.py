"""fp32 GEMM rate of onnxruntime (MLAS) on the MiniLM encoder's MatMul shapes, for the rerank
report's compute-utilisation note: one MatMul graph per shape, 8,192 rows (32 pairs x 256 tokens),
2 intra-op threads, median of 5 rounds of 20 runs. Run it under the benchmark lock:
  flock /tmp/ragrank-bench.lock .venv-py/bin/python bench/probes/gemm_rate.py
"""
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

for m, k, n in ((8192, 384, 384), (8192, 384, 1536), (8192, 1536, 384)):
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((k, n)).astype(np.float32), "W")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])], [w])
    mp = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = 2, 1
    s = ort.InferenceSession(mp.SerializeToString(), so, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(1).standard_normal((m, k)).astype(np.float32)
    for _ in range(3):
        s.run(None, {"x": x})
    rates = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(20):
            s.run(None, {"x": x})
        rates.append(2 * m * k * n * 20 / (time.perf_counter() - t0) / 1e9)
    print(f"{m}x{k} @ {k}x{n}: median {np.median(rates):.0f} GFLOP/s (min {min(rates):.0f}, max {max(rates):.0f})")
