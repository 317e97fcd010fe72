"""Reference vectors and the comparisons recorded in READY / reference.json."""

import json
from pathlib import Path

import numpy as np

from common import REFERENCE, cosines, log, ragrank_vectors, write_json


def st_vectors(folder: Path, cases: list) -> np.ndarray:
    """sentence-transformers' vectors: its prompts by name (query; passage, else document: the names ragrank's
    embedDocuments looks for), its own truncation and pooling."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu")
    out = []
    for c in cases:
        names = {"query": ["query"], "passage": ["passage", "document"]}.get(c["kind"], [])
        prompt = next((n for n in names if n in model.prompts), None)
        out.append(model.encode([c["text"]], prompt_name=prompt, convert_to_numpy=True)[0])
    return np.array(out, np.float64)


def summary(name: str, got: np.ndarray, want: np.ndarray, minimum: float) -> dict:
    """min / mean cosine of got vs want; exits when the minimum is under `minimum`."""
    cos = cosines(got, want)
    figures = {"min": round(float(cos.min()), 6), "mean": round(float(cos.mean()), 6), "n": len(cos)}
    log(f"  {name}: cosine min {figures['min']:.6f}, mean {figures['mean']:.6f} over {len(cos)} texts "
        f"(need >= {minimum})")
    if not cos.min() >= minimum:
        raise SystemExit(f"{name}: min cosine {cos.min():.6f} < {minimum}")
    return figures


def write_reference(folder: Path, *, model: str, source: str, cases: list, vectors: np.ndarray, reference: str,
                    min_cosine: float, checks: dict, notes: str = "") -> None:
    """reference.json: what __test__/models/real-models.spec.mjs compares ragrank's vectors with."""
    write_json(folder / REFERENCE, {
        "model": model, "source": source, "reference": reference, "min_cosine": min_cosine, "checks": checks,
        "notes": notes, "cases": [{**c, "vector": [round(float(x), 7) for x in v]} for c, v in zip(cases, vectors)],
    })


def ragrank_check(folder: Path, cases: list, want: np.ndarray, minimum: float, name: str) -> dict:
    return summary(f"ragrank vs {name}", ragrank_vectors(folder, cases), want, minimum)


def read_reference(folder: Path) -> dict:
    return json.loads((folder / REFERENCE).read_text(encoding="utf-8"))


def ort_vectors(folder: Path, cases: list, prompts: dict, max_length: int, onnx_file: str = "onnx/model.onnx",
                fusions: str = "ragrank") -> np.ndarray:
    """onnxruntime (Python) on the folder's ONNX file: tokenizer.json truncated at max_length, one text per run,
    mean pooling and L2 normalisation; the graph's own inputs are fed (token_type_ids as zeros).

    fusions "ragrank" builds the session as ragrank does (optimization level 3 with SkipLayerNormFusion off),
    "default" as onnxruntime's Python default (every fusion). The two compute the same fp32 vectors, but an int8
    graph's dynamic activation quantization amplifies the rounding difference of the fused LayerNorm."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length)
    options = ort.SessionOptions()
    if fusions == "ragrank":
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.add_session_config_entry("optimization.disable_specified_optimizers", "SkipLayerNormFusion")
    session = ort.InferenceSession(str(folder / onnx_file), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    out = []
    for c in cases:
        enc = tok.encode(prompts.get(c["kind"], "") + c["text"])
        ids = np.array([enc.ids], np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, {n: feed[n] for n in names})[0][0]
        v = hidden.mean(axis=0)
        out.append(v / np.linalg.norm(v))
    return np.array(out, np.float64)
