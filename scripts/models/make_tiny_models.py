#!/usr/bin/env python3
"""Build the tiny random-weight BERT test models in fixtures/models/.

Three models, each in the Hugging Face / Optimum / transformers.js folder layout
(config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx):

  tiny-cross-encoder         BertForSequenceClassification, 1 label,
                             inputs input_ids, attention_mask, token_type_ids,
                             output logits [batch_size, 1];
                             also onnx/model_quantized.onnx (dynamic int8).
  tiny-cross-encoder-2label  BertForSequenceClassification, 2 labels,
                             inputs input_ids, attention_mask only (no
                             token_type_ids input, like XLM-R based rerankers),
                             output logits [batch_size, 2].
  tiny-embedder              BertModel, inputs input_ids, attention_mask,
                             token_type_ids, output last_hidden_state
                             [batch_size, sequence_length, 32].

The graphs come from scripts/models/onnx_graphs.py (the repository's one ONNX
graph builder, operator by operator with the `onnx` helper API, no torch): word + position + token-type embeddings, LayerNorm, 2 post-LN encoder
layers of 4-head self-attention with the additive mask (1 - mask) * -10000,
exact-erf GELU feed-forward, and for the classifiers the BERT pooler
(dense + tanh on the [CLS] vector) followed by a linear head.

Weights are random (numpy default_rng with a fixed seed per model), drawn large
enough (matrices ~ N(0, 0.2)) that different inputs give clearly different
outputs and a wrong attention mask changes them.

Checks run after writing (the script exits non-zero if one fails):
  * every graph passes onnx.checker (full check) and loads in onnxruntime;
  * onnxruntime output == an independent numpy implementation of BERT with the
    same weights (max abs diff <= 1e-4), with and without graph optimizations;
  * a right-padded batch gives the same outputs as one-by-one unpadded runs
    (max abs diff <= 1e-5 over the valid positions), which proves the mask;
  * the same padded batch with an all-ones mask gives clearly different
    outputs (so the mask test is not vacuous);
  * tokenizer.json round-trips through the `tokenizers` library;
  * each model file is under 1 MB.

Usage:  .venv-py/bin/python scripts/models/make_tiny_models.py [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx_graphs import IR_VERSION, MASK_NEG, BertShape, bert_graph
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(REPO, "fixtures", "models")

HIDDEN = 32
LAYERS = 2
HEADS = 4
HEAD_DIM = HIDDEN // HEADS
INTERMEDIATE = 64
MAX_POSITIONS = 128
MODEL_MAX_LENGTH = 64  # tokenizer_config.json; smaller than MAX_POSITIONS so truncation is exercised
LN_EPS = 1e-12
MAX_BYTES = 1_000_000

MODELS = [
    # name, seed, kind, num_labels, has token_type_ids input, type_vocab_size, quantize
    dict(name="tiny-cross-encoder", seed=11_2024, kind="classifier", num_labels=1,
         token_type_input=True, type_vocab_size=2, quantize=True),
    dict(name="tiny-cross-encoder-2label", seed=22_2024, kind="classifier", num_labels=2,
         token_type_input=False, type_vocab_size=1, quantize=False),
    dict(name="tiny-embedder", seed=33_2024, kind="embedder", num_labels=0,
         token_type_input=True, type_vocab_size=2, quantize=False, tokenizer_json_limits=True),
]

# --------------------------------------------------------------------------- vocab

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # ids 0..4

# Single characters: ASCII letters/digits, the punctuation BERT splits off, and a
# few CJK characters (BertNormalizer puts spaces around each CJK character).
# Characters outside this list (emoji, Cyrillic, the em dash, most CJK) become
# [UNK]; accents are stripped by the normalizer (lowercase => strip_accents).
CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789") + list(".,?!-:;'\"()[]/&$%@#*+=") + list("北京中国首都是的")

WORDS = """
the a an of is are was were be in on at by and or not no to for from with as it this that these
what which who where when how why capital city cities country countries france french paris
germany german berlin china beijing italy rome spain madrid london england europe european
river seine largest large small population million people history historic museum tower
eiffel louvre art famous known about near also has have had its their there than more most
food cooking cook recipe bread cheese wine coffee cafe tea water salt sugar flour oven minutes
bake hour hours heat dough butter milk egg eggs test token text hello world number numbers
unknown symbol symbols inside leading trailing space spaces tab tabs line new old one two three
year years day time first last long short sentence query document search rank model vector
embedding score relevant answer question train station street bridge park garden north south
east west center part region state government president king queen war century built
""".split()

SUBWORDS = "##s ##es ##ed ##ing ##er ##ers ##est ##ly ##ness ##tion ##ation ##al ##able ##ize ##ization ##ity ##ful ##less ##ment un re in".split()


def build_vocab() -> list[str]:
    vocab: list[str] = []
    seen = set()
    for tok in SPECIALS + CHARS + ["##" + c for c in CHARS if c.isalnum() and c.isascii()] + WORDS + SUBWORDS:
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)
    return vocab


def build_tokenizer(vocab: list[str]) -> Tokenizer:
    ids = {t: i for i, t in enumerate(vocab)}
    tok = Tokenizer(models.WordPiece(ids, unk_token="[UNK]", continuing_subword_prefix="##",
                                     max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                strip_accents=None, lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])],
    )
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=True)
    tok.add_special_tokens(SPECIALS)  # already in the vocab: keeps ids 0..4, marks them special
    return tok


def tokenizer_config(model: dict) -> dict:
    cfg = {
        "added_tokens_decoder": {
            str(i): {"content": t, "lstrip": False, "normalized": False, "rstrip": False,
                     "single_word": False, "special": True}
            for i, t in enumerate(SPECIALS)
        },
        "clean_up_tokenization_spaces": True,
        "cls_token": "[CLS]",
        "do_basic_tokenize": True,
        "do_lower_case": True,
        "mask_token": "[MASK]",
        "model_max_length": MODEL_MAX_LENGTH,
        "never_split": None,
        "pad_token": "[PAD]",
        "sep_token": "[SEP]",
        "strip_accents": None,
        "tokenize_chinese_chars": True,
        "tokenizer_class": "BertTokenizer",
        "unk_token": "[UNK]",
    }
    if not model["token_type_input"]:
        cfg["model_input_names"] = ["input_ids", "attention_mask"]
    return cfg


def model_config(model: dict, vocab_size: int) -> dict:
    cfg = {
        "_name_or_path": f"ragrank/{model['name']}",
        "architectures": ["BertForSequenceClassification" if model["kind"] == "classifier" else "BertModel"],
        "attention_probs_dropout_prob": 0.0,
        "classifier_dropout": None,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0,
        "hidden_size": HIDDEN,
        "initializer_range": 0.2,
        "intermediate_size": INTERMEDIATE,
        "layer_norm_eps": LN_EPS,
        "max_position_embeddings": MAX_POSITIONS,
        "model_type": "bert",
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "torch_dtype": "float32",
        "type_vocab_size": model["type_vocab_size"],
        "use_cache": True,
        "vocab_size": vocab_size,
    }
    if model["kind"] == "classifier":
        n = model["num_labels"]
        # Like real HF configs there is no "num_labels" key: it is len(id2label).
        cfg["id2label"] = {str(i): f"LABEL_{i}" for i in range(n)}
        cfg["label2id"] = {f"LABEL_{i}": i for i in range(n)}
    return dict(sorted(cfg.items()))


# --------------------------------------------------------------------------- weights


def make_weights(model: dict, vocab_size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(model["seed"])

    def mat(*shape, std=0.2):
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    def ln(prefix, w):
        w[prefix + ".weight"] = (1.0 + rng.normal(0.0, 0.1, size=HIDDEN)).astype(np.float32)
        w[prefix + ".bias"] = mat(HIDDEN, std=0.1)

    w: dict[str, np.ndarray] = {}
    e = "bert.embeddings"
    w[e + ".word_embeddings.weight"] = mat(vocab_size, HIDDEN, std=0.5)
    w[e + ".position_embeddings.weight"] = mat(MAX_POSITIONS, HIDDEN, std=0.5)
    w[e + ".token_type_embeddings.weight"] = mat(model["type_vocab_size"], HIDDEN, std=0.5)
    ln(e + ".LayerNorm", w)
    for i in range(LAYERS):
        p = f"bert.encoder.layer.{i}"
        # Linear weights are stored as [in, out] (x @ W + b), as torch.onnx export
        # stores the MatMul initializers.
        for n in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            w[f"{p}.{n}.weight"] = mat(HIDDEN, HIDDEN)
            w[f"{p}.{n}.bias"] = mat(HIDDEN, std=0.1)
        ln(f"{p}.attention.output.LayerNorm", w)
        w[f"{p}.intermediate.dense.weight"] = mat(HIDDEN, INTERMEDIATE)
        w[f"{p}.intermediate.dense.bias"] = mat(INTERMEDIATE, std=0.1)
        w[f"{p}.output.dense.weight"] = mat(INTERMEDIATE, HIDDEN)
        w[f"{p}.output.dense.bias"] = mat(HIDDEN, std=0.1)
        ln(f"{p}.output.LayerNorm", w)
    if model["kind"] == "classifier":
        w["bert.pooler.dense.weight"] = mat(HIDDEN, HIDDEN)
        w["bert.pooler.dense.bias"] = mat(HIDDEN, std=0.1)
        w["classifier.weight"] = mat(HIDDEN, model["num_labels"], std=0.5)
        w["classifier.bias"] = mat(model["num_labels"], std=0.1)
    return w


# --------------------------------------------------------------------------- graph


def build_graph(model: dict, w: dict) -> onnx.ModelProto:
    # "compact": the op pattern these committed models were written with (see onnx_graphs.py)
    shape = BertShape(hidden=HIDDEN, layers=LAYERS, heads=HEADS, eps=LN_EPS,
                      head="classifier" if model["kind"] == "classifier" else "embedder",
                      labels=model["num_labels"] or 1, token_type_input=model["token_type_input"], style="compact")
    return bert_graph(shape, w, producer="ragrank-make_tiny_models",
                      doc=f"ragrank test model {model['name']}: random weights (seed {model['seed']}), not trained.")


# --------------------------------------------------------------------------- numpy reference


_erf = np.vectorize(math.erf, otypes=[np.float64])


def np_layer_norm(x, gamma, beta):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + LN_EPS) * gamma + beta


def np_forward(model: dict, w: dict, ids: np.ndarray, mask: np.ndarray, types: np.ndarray | None) -> np.ndarray:
    """Plain float64 BERT forward pass, written independently of the graph builder."""
    W = {k: v.astype(np.float64) for k, v in w.items()}
    B, S = ids.shape
    e = "bert.embeddings"
    tt = W[e + ".token_type_embeddings.weight"][types if types is not None else np.zeros_like(ids)]
    x = W[e + ".word_embeddings.weight"][ids] + W[e + ".position_embeddings.weight"][np.arange(S)][None] + tt
    x = np_layer_norm(x, W[e + ".LayerNorm.weight"], W[e + ".LayerNorm.bias"])
    add_mask = (1.0 - mask.astype(np.float64))[:, None, None, :] * MASK_NEG
    for i in range(LAYERS):
        p = f"bert.encoder.layer.{i}"

        def lin(t, n):
            return t @ W[f"{p}.{n}.weight"] + W[f"{p}.{n}.bias"]

        def split(t):
            return t.reshape(B, S, HEADS, HEAD_DIM).transpose(0, 2, 1, 3)

        q, k, v = (split(lin(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(HEAD_DIM) + add_mask
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(0, 2, 1, 3).reshape(B, S, HIDDEN)
        x = np_layer_norm(lin(ctx, "attention.output.dense") + x,
                          W[f"{p}.attention.output.LayerNorm.weight"], W[f"{p}.attention.output.LayerNorm.bias"])
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
        x = np_layer_norm(lin(h, "output.dense") + x, W[f"{p}.output.LayerNorm.weight"], W[f"{p}.output.LayerNorm.bias"])
    if model["kind"] != "classifier":
        return x
    pooled = np.tanh(x[:, 0] @ W["bert.pooler.dense.weight"] + W["bert.pooler.dense.bias"])
    return pooled @ W["classifier.weight"] + W["classifier.bias"]


# --------------------------------------------------------------------------- verification


def session(path: str, optimize: bool = True) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def feeds(sess, ids, mask, types):
    names = {i.name for i in sess.get_inputs()}
    f = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in names:
        f["token_type_ids"] = types
    return f


def verify(model: dict, w: dict, path: str, vocab_size: int, quantized: bool = False) -> dict:
    """Returns a dict of measured differences; raises AssertionError on failure."""
    rng = np.random.default_rng(model["seed"] + 1)
    lengths = [1, 2, 5, 9, 17, 33, 64, 3]
    B, S = len(lengths), max(lengths)
    ids = np.zeros((B, S), np.int64)
    mask = np.zeros((B, S), np.int64)
    types = np.zeros((B, S), np.int64)
    for b, n in enumerate(lengths):
        ids[b, :n] = rng.integers(5, vocab_size, size=n)
        ids[b, 0], ids[b, n - 1] = 2, 3
        mask[b, :n] = 1
        if model["type_vocab_size"] > 1 and n > 4:
            types[b, n // 2:n] = 1
    out = {}
    sess = session(path)
    out_name = sess.get_outputs()[0].name
    batched = sess.run([out_name], feeds(sess, ids, mask, types))[0]
    single_diff = 0.0
    for b, n in enumerate(lengths):
        one = sess.run([out_name], feeds(sess, ids[b:b + 1, :n], mask[b:b + 1, :n], types[b:b + 1, :n]))[0]
        ref = batched[b:b + 1] if model["kind"] == "classifier" else batched[b:b + 1, :n]
        single_diff = max(single_diff, float(np.abs(one - ref).max()))
    out["padded_batch_vs_unpadded_max_abs_diff"] = single_diff
    nomask = sess.run([out_name], feeds(sess, ids, np.ones_like(mask), types))[0]
    if model["kind"] == "classifier":
        out["all_ones_mask_max_abs_change"] = float(np.abs(nomask[:-2] - batched[:-2]).max())
        out["logit_range"] = [float(batched.min()), float(batched.max())]
    else:
        out["all_ones_mask_max_abs_change"] = max(float(np.abs(nomask[b, :n] - batched[b, :n]).max())
                                                  for b, n in enumerate(lengths) if n < S)
    if quantized:
        # Dynamic int8 quantizes activations with one scale per tensor, computed over
        # the whole batch (padding included), so batching changes the result a little.
        ref = np_forward(model, w, ids, mask, types if model["token_type_input"] else None)
        out["vs_fp32_numpy_max_abs_diff"] = float(np.abs(batched - ref).max())
        if single_diff > 0.1:
            raise AssertionError(f"{path}: quantized padded-vs-unpadded diff {single_diff}")
        return out
    if single_diff > 1e-5:
        raise AssertionError(f"{path}: padded batch vs unpadded diff {single_diff} > 1e-5")
    if out["all_ones_mask_max_abs_change"] < 0.05:
        raise AssertionError(f"{path}: attention mask has no visible effect")
    ref = np_forward(model, w, ids, mask, types if model["token_type_input"] else None)
    valid = mask.astype(bool)
    for opt in (True, False):
        got = session(path, opt).run([out_name], feeds(sess, ids, mask, types))[0]
        d = float(np.abs(got - ref).max()) if model["kind"] == "classifier" else float(np.abs(got[valid] - ref[valid]).max())
        out[f"vs_numpy_max_abs_diff_{'optimized' if opt else 'unoptimized'}"] = d
        if d > 1e-4:
            raise AssertionError(f"{path}: onnxruntime vs numpy diff {d}")
    return out


# --------------------------------------------------------------------------- main


def write_json(path: str, obj) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


def quantize(src: str, dst: str) -> None:
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.getLogger().setLevel(logging.ERROR)  # silences the "consider pre-processing" hint

    with tempfile.TemporaryDirectory() as tmp:
        tmp_out = os.path.join(tmp, "q.onnx")
        quantize_dynamic(src, tmp_out, weight_type=QuantType.QInt8, per_channel=False, op_types_to_quantize=["MatMul"])
        mp = onnx.load(tmp_out)
    # Keep the file loadable by older runtimes and byte-stable.
    mp.ir_version = IR_VERSION
    mp.producer_name = "ragrank-make_tiny_models"
    mp.producer_version = "1"
    mp.doc_string = "dynamic int8 quantization (onnxruntime.quantization.quantize_dynamic, QInt8 weights, MatMul only) of model.onnx"
    onnx.checker.check_model(mp, full_check=True)
    onnx.save(mp, dst)


def sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()

    vocab = build_vocab()
    tok = build_tokenizer(vocab)
    report = {}
    for model in MODELS:
        d = os.path.join(args.out, model["name"])
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(os.path.join(d, "onnx"))
        w = make_weights(model, len(vocab))
        mp = build_graph(model, w)
        path = os.path.join(d, "onnx", "model.onnx")
        onnx.save(mp, path)
        if model.get("tokenizer_json_limits"):
            # Like many sentence-transformers exports, this tokenizer.json carries its own
            # truncation (128) and padding blocks. They disagree with model_max_length (64)
            # on purpose: a runtime must set its own truncation, not inherit this one.
            tok.enable_truncation(MAX_POSITIONS, strategy="longest_first")
            tok.enable_padding(pad_id=0, pad_token="[PAD]")
        tok.save(os.path.join(d, "tokenizer.json"), pretty=True)
        tok.no_truncation()
        tok.no_padding()
        write_json(os.path.join(d, "tokenizer_config.json"), tokenizer_config(model))
        write_json(os.path.join(d, "config.json"), model_config(model, len(vocab)))

        # tokenizer round trip
        t2 = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
        enc = t2.encode("What is the capital of France?", "Paris is the capital.")
        assert enc.ids[0] == 2 and enc.ids.count(3) == 2 and 1 not in enc.ids, enc.tokens
        assert t2.get_vocab_size() == len(vocab)

        rep = {"files": {}}
        rep["checks"] = verify(model, w, path, len(vocab))
        if model["quantize"]:
            qpath = os.path.join(d, "onnx", "model_quantized.onnx")
            quantize(path, qpath)
            rep["checks_quantized"] = verify(model, w, qpath, len(vocab), quantized=True)
        for root, _, files in os.walk(d):
            for fn in sorted(files):
                fp = os.path.join(root, fn)
                size = os.path.getsize(fp)
                if fn.endswith(".onnx") and size >= MAX_BYTES:
                    raise AssertionError(f"{fp} is {size} bytes")
                rep["files"][os.path.relpath(fp, d)] = {"bytes": size, "sha256": sha256(fp)[:16]}
        s = session(path)
        rep["inputs"] = [(i.name, i.type, i.shape) for i in s.get_inputs()]
        rep["outputs"] = [(o.name, o.type, o.shape) for o in s.get_outputs()]
        report[model["name"]] = rep

    print(json.dumps(report, indent=1))
    print(f"vocab size {len(vocab)}; all checks passed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
