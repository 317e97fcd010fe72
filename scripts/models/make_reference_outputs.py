#!/usr/bin/env python3
"""Generate fixtures/models/reference.json from the tiny test models.

Python reference stack: the HF `tokenizers` library (tokenizer.json as shipped in
each model folder) and onnxruntime (CPU, graph optimizations on, 1 thread).
Every query/document pair and every text is run on its own, unpadded (batch of
one, attention_mask all ones), so the reference does not depend on batching or
padding. A runtime that batches and pads must reproduce these numbers.

Max length: `model_max_length` from each model's tokenizer_config.json (64),
counted with the special tokens. Any truncation/padding block inside
tokenizer.json is ignored (tiny-embedder's tokenizer.json carries one on purpose).

Cross-encoder truncation (pairs, "[CLS] query [SEP] document [SEP]"):
  1. no truncation if query_tokens + document_tokens + 3 <= max_length;
  2. otherwise 'only_second' (cut the end of the document) when that leaves the
     document at least one token, i.e. query_tokens + 3 < max_length;
  3. otherwise 'longest_first' (the tokenizers library's rule: when both are
     longer than half the budget, the shorter one keeps floor(budget/2) and the
     longer one the rest; else the shorter one is kept whole).
  With the `tokenizers` crate/library this is: encode with OnlySecond; if that
  fails with "Sequence to truncate too short", encode again with LongestFirst.
  The script does exactly that and also checks the outcome against rules 1-3.

Embedder truncation: the text is cut at the end to max_length - 2 tokens.

Usage:  .venv-py/bin/python scripts/models/make_reference_outputs.py [--models DIR] [--out PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
from importlib.metadata import version

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: fixture_json
from fixture_json import COMPACT, indented_json, scalars, write_fixture  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MODELS = os.path.join(REPO, "fixtures", "models")

CROSS_ENCODERS = [
    # (result key, model folder, onnx file)
    ("tiny-cross-encoder", "tiny-cross-encoder", "onnx/model.onnx"),
    ("tiny-cross-encoder/quantized", "tiny-cross-encoder", "onnx/model_quantized.onnx"),
    ("tiny-cross-encoder-2label", "tiny-cross-encoder-2label", "onnx/model.onnx"),
]
EMBEDDER = ("tiny-embedder", "onnx/model.onnx")

LONG_PARIS = (
    "Paris is the capital and largest city of France. The city is on the river Seine, in the north "
    "of the country. Paris has been one of the most important cities in Europe for more than one "
    "thousand years; its museums, such as the Louvre, and the Eiffel tower, built in 1889, are known "
    "around the world. About two million people live in the city itself, and more than twelve million "
    "in the region around it."
)
LONG_COOKING = (
    "To bake bread at home, mix flour, water, salt and a little sugar into a dough, then let it rest "
    "for two hours in a warm place. Heat the oven, shape the dough, and bake it for forty minutes "
    "until the crust is brown. Serve the bread with butter, cheese or a cup of coffee; it keeps for "
    "three days, and old bread makes good toast."
)
LONG_QUERY = (
    "I am looking for a long and detailed answer to the following question about European history "
    "and geography: which city is the capital of France, which river runs through that city, when "
    "was the famous iron tower in the city built, and how many people live in the city and in the "
    "region around it today?"
)
FILLER = ("paris is the capital of france and the largest city in the country on the river seine "
          "with a famous tower and a museum of art").split()

QUERY = "What is the capital of France?"


def filler_text(tok: Tokenizer, n_tokens: int) -> str:
    """A text of exactly n_tokens tokens (all filler words are single tokens)."""
    words = [FILLER[i % len(FILLER)] for i in range(n_tokens)]
    text = " ".join(words)
    assert len(tok.encode(text, add_special_tokens=False).ids) == n_tokens
    return text


def cross_encoder_groups(tok: Tokenizer, max_len: int) -> list[dict]:
    q_len = len(tok.encode(QUERY, add_special_tokens=False).ids)
    room = max_len - 3 - q_len
    docs = [
        "",
        "Paris is the capital of France.",
        "The capital of France is Paris, a city on the river Seine.",
        "Berlin is the capital of Germany.",
        "France",
        "Paris",
        "What is the capital?",
        "PARIS paris Paris pArIs",
        "Café au lait in Paris — naïve résumé.",
        "北京是中国的首都",
        "Emoji test 🙂 👍 with unknown symbols ✓",
        "Привет, мир! Hello world.",
        "numbers 1234 and 3.14159 and 2024-01-01",
        "Unhappiness, unbelievable, internationalization.",
        "   leading and trailing spaces \n\t with tabs   ",
        "The [SEP] token and the [MASK] token inside the text.",
        LONG_PARIS,
        LONG_COOKING,
        filler_text(tok, room),       # fills max_length exactly: no truncation
        filler_text(tok, room + 1),   # one token too long: the document loses its last token
        "a",
    ]
    return [
        {"name": "main", "query": QUERY, "documents": docs,
         "comment": f"query of {q_len} tokens; documents {len(docs) - 3} and {len(docs) - 2} are built to be "
                    f"exactly max_length and max_length + 1 tokens as a pair, so after truncation they are the "
                    f"same input and must get the same score"},
        {"name": "long_query", "query": LONG_QUERY,
         "documents": ["", "Paris is the capital of France.", filler_text(tok, 40)],
         "comment": "query longer than max_length: longest_first truncation cuts the query too"},
        {"name": "both_overlong", "query": LONG_QUERY, "documents": [LONG_PARIS, LONG_COOKING],
         "comment": "query and document both longer than max_length: longest_first gives each half of the "
                    "budget; which one gets the odd token depends on the tokenizers version, see 'alternate'"},
        {"name": "edge", "query": filler_text(tok, max_len - 4),
         "documents": ["Paris is the capital of France.", ""],
         "comment": "query of max_length - 4 tokens: only_second keeps exactly one document token"},
        {"name": "edge_full", "query": filler_text(tok, max_len - 3),
         "documents": ["Paris is the capital of France.", ""],
         "comment": "query of max_length - 3 tokens: with a non-empty document only_second would leave the "
                    "document empty, so longest_first is used; with an empty document nothing is cut"},
    ]


EMBEDDER_TEXTS_FIXED = [
    "",
    "Paris is the capital of France.",
    "paris is the capital of france",
    "Berlin is the capital of Germany.",
    "The Eiffel tower is a famous tower in Paris.",
    "How to bake bread: flour, water, salt and an oven.",
    "北京是中国的首都",
    "Café au lait — naïve résumé 🙂",
    "Привет, мир!",
    "a",
    "   \t ",
    "The [MASK] token is special.",
    LONG_COOKING,
]


def sig(x: float) -> float:
    """Round to 7 significant digits."""
    if x == 0 or not math.isfinite(x):
        return float(x)
    return float(f"{x:.7g}")


def rnd(a) -> list:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 0:
        return sig(float(a))
    return [rnd(x) for x in a] if a.ndim > 1 else [sig(float(x)) for x in a]


def load_tokenizer(folder: str) -> tuple[Tokenizer, int]:
    tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        max_len = int(json.load(f)["model_max_length"])
    return tok, max_len


def session(path: str) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def run(sess: ort.InferenceSession, ids_rows, type_rows) -> np.ndarray:
    """Right-padded batch run; with one row there is no padding."""
    S = max(len(r) for r in ids_rows)
    B = len(ids_rows)
    ids = np.zeros((B, S), np.int64)
    mask = np.zeros((B, S), np.int64)
    types = np.zeros((B, S), np.int64)
    for b, (r, t) in enumerate(zip(ids_rows, type_rows)):
        ids[b, :len(r)] = r
        mask[b, :len(r)] = 1
        types[b, :len(t)] = t
    names = [i.name for i in sess.get_inputs()]
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in names:  # fed only when the graph declares it
        feeds["token_type_ids"] = types
    return sess.run(None, feeds)[0]


def longest_first(n_q: int, n_d: int, budget: int) -> tuple[int, int]:
    """Kept (query, document) lengths under tokenizers' LongestFirst for a pair."""
    n1, n2 = sorted((n_q, n_d))
    n2 = n1 if n1 > budget else max(n1, budget - n1)
    if n1 + n2 > budget:
        n1 = budget // 2
        n2 = n1 + budget % 2
    short_k, long_k = n1, n2
    q_k, d_k = (long_k, short_k) if n_q > n_d else (short_k, long_k)
    return min(n_q, q_k), min(n_d, d_k)


def prelimited(tok: Tokenizer, text: str, max_len: int) -> int:
    """Length tokenizers 0.23.1-0.23.2 see before LongestFirst: with truncation on, each
    sequence is tokenized word by word only until it has >= max_length tokens."""
    enc = tok.encode(text, add_special_tokens=False)
    total, last = 0, None
    for w in enc.word_ids:
        if w != last and total >= max_len:
            break
        total, last = total + 1, w
    return total


def encode_pair(tok: Tokenizer, query: str, doc: str, max_len: int) -> dict:
    q_n = len(tok.encode(query, add_special_tokens=False).ids)
    d_n = len(tok.encode(doc, add_special_tokens=False).ids)
    full = tok.encode(query, doc)
    if len(full.ids) <= max_len:
        enc, strategy = full, "none"
    else:
        tok.enable_truncation(max_len, strategy="only_second")
        try:
            enc, strategy = tok.encode(query, doc), "only_second"
        except Exception as ex:  # "Sequence to truncate too short to respect the provided max_length"
            assert "too short" in str(ex), ex
            tok.enable_truncation(max_len, strategy="longest_first")
            enc, strategy = tok.encode(query, doc), "longest_first"
        tok.no_truncation()
    # independent check of the rule
    expected = "none" if q_n + d_n + 3 <= max_len else ("only_second" if q_n + 3 < max_len else "longest_first")
    assert strategy == expected, (query, doc, strategy, expected)
    ids, types = enc.ids, enc.type_ids
    assert ids[0] == tok.token_to_id("[CLS]") and ids[-1] == tok.token_to_id("[SEP]")
    q_kept = types.index(1) - 2 if 1 in types else len(ids) - 3
    d_kept = len(ids) - 3 - q_kept
    if strategy == "only_second":
        assert q_kept == q_n and d_kept == max_len - 3 - q_n
    if strategy == "longest_first":
        assert (q_kept, d_kept) == longest_first(q_n, d_n, max_len - 3), (q_kept, d_kept)
    assert types == [0] * (q_kept + 2) + [1] * (d_kept + 1)
    out = {"truncation": strategy, "query_tokens": q_n, "document_tokens": d_n,
           "query_tokens_kept": q_kept, "document_tokens_kept": d_kept,
           "input_ids": ids, "token_type_ids": types}
    if strategy == "longest_first":
        alt = longest_first(prelimited(tok, query, max_len), prelimited(tok, doc, max_len), max_len - 3)
        if alt != (q_kept, d_kept):
            q_ids = tok.encode(query, add_special_tokens=False).ids[:alt[0]]
            d_ids = tok.encode(doc, add_special_tokens=False).ids[:alt[1]]
            cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
            out["alternate"] = {"truncation": strategy, "query_tokens": q_n, "document_tokens": d_n,
                                "query_tokens_kept": alt[0], "document_tokens_kept": alt[1],
                                "input_ids": [cls, *q_ids, sep, *d_ids, sep],
                                "token_type_ids": [0] * (alt[0] + 2) + [1] * (alt[1] + 1)}
    return out


def file_sha(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def dumps(obj) -> str:
    """Nested objects indented; a list of scalars (or of lists of scalars) on one line unless its strings are long."""
    def inline(o) -> bool:
        return (isinstance(o, list) and all(not isinstance(x, dict) and (not isinstance(x, list) or scalars(x)) for x in o)
                and sum(len(x) for x in o if isinstance(x, str)) <= 100)

    return indented_json(obj, inline, COMPACT)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--out", default=None, help="default: <models>/reference.json")
    args = ap.parse_args()
    out_path = args.out or os.path.join(args.models, "reference.json")

    ref: dict = {
        "generator": "scripts/models/make_reference_outputs.py",
        "versions": {p: version(p) for p in ("onnxruntime", "tokenizers", "numpy")},
        "notes": [
            "Every pair/text was run alone and unpadded (batch of one, attention_mask all ones), onnxruntime CPU, "
            "graph optimizations on, 1 thread. Numbers are rounded to 7 significant digits.",
            "Tokenization: tokenizer.json of the model folder with add_special_tokens=true; its own truncation/padding "
            "blocks are ignored. max_length = model_max_length from tokenizer_config.json, special tokens included.",
            "Pair truncation rule: none if it fits; else only_second (cut the document's end) when the document "
            "keeps >= 1 token (query_tokens + 3 < max_length); else longest_first (tokenizers semantics).",
            "token_type_ids: 0 for [CLS] query [SEP], 1 for document [SEP]. Fed only to graphs that declare a "
            "token_type_ids input (tiny-cross-encoder-2label does not declare one).",
            "tiny-cross-encoder: logits [n,1]; sigmoid = 1/(1+exp(-logit)).",
            "tiny-cross-encoder-2label: logits [n,2]; sigmoid_label1 = sigmoid(logits[:,1]) (label 1 = positive); "
            "softmax_label1 = softmax(logits)[:,1] = sigmoid(logits[:,1]-logits[:,0]).",
            "tiny-cross-encoder/quantized (onnx/model_quantized.onnx, dynamic int8): its activation scales are "
            "computed per tensor over the whole batch, padding included, so a padded batch does NOT reproduce these "
            "unpadded numbers exactly; batched_max_abs_diff shows how far one padded batch of the whole group is. "
            "Run alone, it matches to ~1e-6 only with all graph optimizations on (ORT Level3/'all', which fuses "
            "the int8 MatMuls); with optimizations off, single runs differ by up to ~0.02.",
            "Group 'both_overlong' has an 'alternate' block: the encodings and scores that tokenizers 0.23.1-0.23.2 "
            "produce for pairs whose query and document both exceed max_length (the odd token of the budget goes "
            "to the other side). Every other encoding is the same for tokenizers 0.22.2, 0.23.2 and 0.23.3.",
            "Embedder: mean = sum over tokens of last_hidden_state * attention_mask / sum(attention_mask) "
            "([CLS] and [SEP] included, as sentence-transformers does); cls = last_hidden_state[0]; "
            "*_normalized = v / max(||v||_2, 1e-12).",
        ],
        "models": {},
        "cross_encoder": {},
        "embedder": {},
    }

    # ------------------------------------------------------------ cross-encoders
    tok, max_len = load_tokenizer(os.path.join(args.models, "tiny-cross-encoder"))
    tok2, max_len2 = load_tokenizer(os.path.join(args.models, "tiny-cross-encoder-2label"))
    assert max_len == max_len2 and tok.to_str() == tok2.to_str(), "cross-encoders are expected to share a tokenizer"
    sessions = {}
    for key, folder, onnx_file in CROSS_ENCODERS:
        path = os.path.join(args.models, folder, onnx_file)
        sessions[key] = session(path)
        ref["models"][key] = {
            "folder": folder, "onnx": onnx_file,
            "inputs": [i.name for i in sessions[key].get_inputs()],
            "outputs": [o.name for o in sessions[key].get_outputs()],
            "sha256": {onnx_file: file_sha(path),
                       "tokenizer.json": file_sha(os.path.join(args.models, folder, "tokenizer.json"))},
        }

    def score(encs: list[dict]) -> dict:
        results = {}
        for key, _, _ in CROSS_ENCODERS:
            sess = sessions[key]
            logits = np.concatenate([run(sess, [e["input_ids"]], [e["token_type_ids"]]) for e in encs]).astype(np.float64)
            batched = run(sess, [e["input_ids"] for e in encs], [e["token_type_ids"] for e in encs]).astype(np.float64)
            bdiff = float(np.abs(batched - logits).max())
            if not key.endswith("quantized"):
                assert bdiff <= 1e-5, (key, bdiff)
            r = {"logits": rnd(logits)}
            if logits.shape[1] == 1:
                r["sigmoid"] = rnd(1.0 / (1.0 + np.exp(-logits[:, 0])))
            else:
                r["sigmoid_label1"] = rnd(1.0 / (1.0 + np.exp(-logits[:, 1])))
                e = np.exp(logits - logits.max(1, keepdims=True))
                r["softmax_label1"] = rnd(e[:, 1] / e.sum(1))
            r["batched_max_abs_diff"] = float(f"{bdiff:.2g}")
            results[key] = r
        return results

    groups = []
    for g in cross_encoder_groups(tok, max_len):
        encs = [encode_pair(tok, g["query"], d, max_len) for d in g["documents"]]
        alts = [e.pop("alternate", None) for e in encs]
        group = {**g, "encodings": encs, "results": score(encs)}
        if any(alts):
            # Only pairs where query and document both exceed max_length are affected.
            assert g["name"] == "both_overlong" and all(alts), g["name"]
            group["alternate"] = {
                "comment": "tokenizers 0.23.1 and 0.23.2 (Rust crate and Python; checked with the crate 0.23.2) "
                           "tokenize each sequence only up to max_length tokens (whole words) before "
                           "LongestFirst, so the query/document length order can flip and the odd token of "
                           "the budget goes to the other side. tokenizers 0.22.x and Python 0.23.3 give the "
                           "main encodings above. Same layout as the group.",
                "encodings": alts, "results": score(alts)}
        groups.append(group)
    ref["cross_encoder"] = {"max_length": max_len, "groups": groups}

    # ------------------------------------------------------------ embedder
    folder = os.path.join(args.models, EMBEDDER[0])
    etok, emax = load_tokenizer(folder)
    epath = os.path.join(folder, EMBEDDER[1])
    esess = session(epath)
    ref["models"][EMBEDDER[0]] = {
        "folder": EMBEDDER[0], "onnx": EMBEDDER[1],
        "inputs": [i.name for i in esess.get_inputs()],
        "outputs": [o.name for o in esess.get_outputs()],
        "sha256": {EMBEDDER[1]: file_sha(epath), "tokenizer.json": file_sha(os.path.join(folder, "tokenizer.json"))},
    }
    texts = EMBEDDER_TEXTS_FIXED + [filler_text(etok, emax - 2), filler_text(etok, emax - 1)]
    etok.enable_truncation(emax, strategy="longest_first")
    cases, hidden_rows, enc_rows = [], [], []
    for t in texts:
        n_full = len(etok.encode(t, add_special_tokens=False).ids)
        enc = etok.encode(t)
        assert len(enc.ids) == min(n_full, emax - 2) + 2 and set(enc.type_ids) <= {0}
        h = run(esess, [enc.ids], [enc.type_ids])[0].astype(np.float64)  # [S, H]
        hidden_rows.append(h)
        enc_rows.append(enc)
        mean = h.mean(0)  # unpadded: every position has mask 1
        cls = h[0]

        def norm(v):
            return v / max(float(np.linalg.norm(v)), 1e-12)

        cases.append({"text_tokens": n_full, "truncated": n_full > emax - 2, "input_ids": enc.ids,
                      "mean": rnd(mean), "mean_normalized": rnd(norm(mean)),
                      "cls": rnd(cls), "cls_normalized": rnd(norm(cls))})
    # padded batch check (masked mean over the valid positions)
    batched = run(esess, [e.ids for e in enc_rows], [e.type_ids for e in enc_rows]).astype(np.float64)
    bdiff = max(float(np.abs(batched[i, :len(e.ids)] - hidden_rows[i]).max()) for i, e in enumerate(enc_rows))
    assert bdiff <= 1e-5, bdiff
    ref["embedder"] = {"model": EMBEDDER[0], "max_length": emax, "hidden_size": int(hidden_rows[0].shape[1]),
                       "texts": texts, "cases": cases, "batched_max_abs_diff": float(f"{bdiff:.2g}")}

    write_fixture(out_path, dumps(ref))
    size = os.path.getsize(out_path)
    assert size < 300_000, size
    print(f"wrote {out_path} ({size} bytes)")
    for g in groups:
        print(f"  group {g['name']}: {len(g['documents'])} docs, truncation "
              f"{[e['truncation'] for e in g['encodings']]}")
        for k, r in g["results"].items():
            print(f"    {k}: batched_max_abs_diff {r['batched_max_abs_diff']}")
    print(f"  embedder: {len(texts)} texts, truncated {[c['truncated'] for c in cases].count(True)}, "
          f"batched_max_abs_diff {bdiff:.2g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
