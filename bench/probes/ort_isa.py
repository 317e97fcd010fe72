#!/usr/bin/env python3
"""Which int8 GEMM kernels does ONNX Runtime's MLAS run here? A timing workload for bench/probes/ort-isa.sh.

Builds (once, into bench/.cache/ort-isa/) a stack of BERT-sized feed-forward MatMuls (384 -> 1536 -> 384, six
layers, like MiniLM-L6's encoder) in fp32 and its dynamic int8 quantization (onnxruntime.quantization
quantize_dynamic: u8 activations x s8 weights, MatMulInteger / DynamicQuantizeLinear, the same operators and MLAS
U8S8 GEMM dispatch as the cross-encoder's model_quantized.onnx), then times both on one intra-op thread and prints
one JSON line: {"ort": version, "fp32_gflops", "int8_gops", "int8_over_fp32", "avx512_elapsed_ms"}.

MLAS picks its U8S8 kernel from CPUID at start-up (platform.cpp, ORT 1.30): AMX when CPUID reports AMX-TILE and
AMX-INT8, XCR0 enables the tile state and MlasInitAMX() obtains the kernel's permission for it
(arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)); otherwise AVX-512 VNNI, AVX-VNNI, AVX-512 core or AVX2.
There is no environment variable or session option to mask an ISA, so ort-isa.sh runs this twice: as is, and with
that arch_prctl made to fail (strace error injection), which forces the VNNI kernel on the same machine.
"""
import json
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

ROWS, HIDDEN, FFN, LAYERS = 256, 384, 1536, 6


def build(path_fp32, path_int8):
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "x"
    for i in range(LAYERS):
        w1 = numpy_helper.from_array((rng.standard_normal((HIDDEN, FFN)) * 0.05).astype(np.float32), f"w1_{i}")
        w2 = numpy_helper.from_array((rng.standard_normal((FFN, HIDDEN)) * 0.05).astype(np.float32), f"w2_{i}")
        inits += [w1, w2]
        nodes += [
            helper.make_node("MatMul", [x, f"w1_{i}"], [f"h_{i}"]),
            helper.make_node("Relu", [f"h_{i}"], [f"r_{i}"]),
            helper.make_node("MatMul", [f"r_{i}", f"w2_{i}"], [f"y_{i}"]),
        ]
        x = f"y_{i}"
    graph = helper.make_graph(
        nodes,
        "ffn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [ROWS, HIDDEN])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [ROWS, HIDDEN])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    onnx.save(model, path_fp32)
    quantize_dynamic(path_fp32, path_int8, weight_type=QuantType.QInt8)


def rate(path, x, seconds=2.0):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    for _ in range(3):
        sess.run(None, {"x": x})
    best = float("inf")
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        t0 = time.perf_counter()
        sess.run(None, {"x": x})
        best = min(best, time.perf_counter() - t0)
    return 2 * ROWS * HIDDEN * FFN * 2 * LAYERS / best / 1e9


def main():
    cache = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".cache", "ort-isa")
    os.makedirs(cache, exist_ok=True)
    fp32, int8 = os.path.join(cache, "ffn-fp32.onnx"), os.path.join(cache, "ffn-int8.onnx")
    if not (os.path.exists(fp32) and os.path.exists(int8)):
        build(fp32, int8)
    x = np.random.default_rng(1).standard_normal((ROWS, HIDDEN)).astype(np.float32)
    f = rate(fp32, x)
    q = rate(int8, x)
    out = {"ort": ort.__version__, "fp32_gflops": f, "int8_gops": q, "int8_over_fp32": q / f}
    try:  # Linux: ms since this process last ran AVX-512 code (-1 = never), read right after the int8 runs
        with open(f"/proc/{os.getpid()}/arch_status") as fh:
            for line in fh:
                if line.startswith("AVX512_elapsed_ms"):
                    out["avx512_elapsed_ms"] = int(line.split(":")[1])
    except OSError:
        pass
    print(json.dumps(out))


if __name__ == "__main__":
    main()
