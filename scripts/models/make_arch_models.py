"""Tiny random-weight models of the architectures users download, exported by cli/export_onnx.py (the exporter of
`ragrank convert`), with sentence-transformers' own outputs on them as the reference ragrank must reproduce.

Writes fixtures/models/arch/<name>/ (the hub layout: config.json, tokenizer.json, tokenizer_config.json, the
sentence-transformers files, onnx/model.onnx; no PyTorch weights) and fixtures/models/arch-reference.json.
Every model has the real configuration of its family (position count, padding id, token types, pooling,
attention pattern) scaled down to 2 layers and a hidden size of 16-32, and a tokenizer of the real kind trained
on the demo corpus: WordPiece (BERT), SentencePiece Unigram (XLM-R, DeBERTa-v2), byte-level BPE (ModernBERT,
Qwen3). Seeded: `npm run fixtures:arch` writes the same numbers every time.

    .venv-export/bin/python scripts/models/make_arch_models.py      (npm run setup:export makes the venv)
"""

import json
import math
import os
import shutil
import sys

# ModernBERT keeps its two rotary embeddings (global, local) in a set of layer types: the order they are traced in,
# and so the ONNX file's bytes, follow Python's string hash, random per process unless fixed
if os.environ.get("PYTHONHASHSEED") != "0":
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
import tempfile
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from sentence_transformers import CrossEncoder, SentenceTransformer
from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import (
    AutoConfig,
    AutoModel,
    AutoModelForCausalLM,
    AutoModelForSequenceClassification,
    PreTrainedTokenizerFast,
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "cli"))
import export_onnx  # noqa: E402
import yes_no_reranker  # noqa: E402

OUT = ROOT / "fixtures" / "models" / "arch"
CORPUS = [json.loads(line)["text"] for line in (ROOT / "demo" / "corpus.jsonl").read_text().splitlines()]
# a yes/no reranker answers with these two tokens
CORPUS += ["yes", "no"] * 50
QUERIES = [json.loads(line)["text"] for line in (ROOT / "demo" / "queries.jsonl").read_text().splitlines()]
warnings.simplefilter("ignore")


# ---- tokenizers of the real kinds, trained small ----------------------------------------------------------------
# The BPE trainer of `tokenizers` is deterministic; its WordPiece and Unigram trainers are not (the vocabulary
# differs from run to run), so those two vocabularies are counted here, by frequency with ties broken by text.


def word_counts(tok):
    counts = Counter()
    for text in CORPUS:
        normalized = tok.normalizer.normalize_str(text) if tok.normalizer else text
        counts.update(w for w, _ in tok.pre_tokenizer.pre_tokenize_str(normalized))
    return counts


def by_frequency(counts, n):
    return [p for p, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def wordpiece():
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    words = word_counts(tok)
    chars = sorted({c for w in words for c in w})
    pieces = Counter({w: n for w, n in words.items() if len(w) > 1})
    for w, n in words.items():  # word endings as continuation pieces (##ing)
        for k in range(2, min(len(w), 5)):
            pieces["##" + w[-k:]] += n
    vocab = specials + chars + ["##" + c for c in chars]
    vocab += by_frequency(pieces, 700 - len(vocab))
    tok.model = models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]")
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    return tok, dict(pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")


def unigram(specials, template, pair):
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(" {2,}", " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    words = word_counts(tok)
    pieces = Counter()
    for w, n in words.items():  # every substring up to 5 characters, weighted by its word's count
        for i in range(len(w)):
            for j in range(i + 1, min(len(w), i + 5) + 1):
                pieces[w[i:j]] += n
    chars = sorted({c for w in words for c in w})
    chosen = chars + [p for p in by_frequency(pieces, 600) if len(p) > 1][: 600 - len(chars)]
    total = sum(pieces[p] for p in chosen)
    vocab = [(t, 0.0) for t in specials] + [(p, round(math.log(pieces[p] / total), 6)) for p in chosen]
    tok.model = models.Unigram(vocab, unk_id=3, byte_fallback=False)
    ids = [(s, tok.token_to_id(s)) for s in specials]
    tok.post_processor = processors.TemplateProcessing(single=template, pair=pair, special_tokens=ids)
    return tok


def xlmr_unigram():
    # XLM-R's ids: <s> 0, <pad> 1, </s> 2, <unk> 3; pairs are `<s> A </s></s> B </s>`, all of token type 0
    tok = unigram(["<s>", "<pad>", "</s>", "<unk>", "<mask>"], "<s> $A </s>", "<s> $A </s> </s> $B </s>")
    return tok, dict(bos_token="<s>", pad_token="<pad>", eos_token="</s>", unk_token="<unk>", cls_token="<s>",
                     sep_token="</s>", mask_token="<mask>")


def deberta_unigram():
    # DeBERTa-v3's spm ids: [PAD] 0, [CLS] 1, [SEP] 2, [UNK] 3
    tok = unigram(["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"], "[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1")
    return tok, dict(pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", unk_token="[UNK]", mask_token="[MASK]")


# Qwen2/Qwen3's pre-tokenizer: this split, then bytes
QWEN_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
              r"|\s+(?!\S)|\s+")


def byte_bpe(specials, single, pair, qwen=False):
    tok = Tokenizer(models.BPE())
    if qwen:
        tok.normalizer = normalizers.NFC()
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    else:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    ids = [(s, tok.token_to_id(s)) for s in specials]
    tok.post_processor = processors.TemplateProcessing(single=single, pair=pair, special_tokens=ids)
    return tok


def modernbert_bpe():
    tok = byte_bpe(["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"], "[CLS] $A [SEP]", "[CLS] $A [SEP] $B [SEP]")
    return tok, dict(unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", mask_token="[MASK]")


QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]


def qwen_bpe():
    # Qwen3-Embedding's tokenizer appends <|endoftext|>, whose vector the last-token pooling takes
    tok = byte_bpe(QWEN_SPECIALS, "$A <|endoftext|>", "$A $B <|endoftext|>", qwen=True)
    return tok, dict(eos_token="<|endoftext|>", pad_token="<|endoftext|>")


def qwen_plain_bpe():
    # Qwen3-Reranker's tokenizer adds nothing; its prompt brings the chat tokens
    tok = byte_bpe(QWEN_SPECIALS, "$A", "$A $B", qwen=True)
    return tok, dict(eos_token="<|im_end|>", pad_token="<|endoftext|>")


# ---- the models --------------------------------------------------------------------------------------------------

SMALL = dict(num_hidden_layers=2, hidden_size=32, num_attention_heads=4, intermediate_size=64)
# 8194 positions x 32 would be a 1 MB table alone: the long-position models are 16 wide
NARROW = dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, intermediate_size=32)
XLMR = dict(model_type="xlm-roberta", pad_token_id=1, bos_token_id=0, eos_token_id=2, type_vocab_size=1,
            layer_norm_eps=1e-5)
QWEN3_PROMPT = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"

MODELS = [
    # name, family, shape of, config, tokenizer, kind, sentence-transformers settings
    dict(name="bert-embedder", family="BERT", like="sentence-transformers/all-MiniLM-L6-v2",
         config=dict(model_type="bert", max_position_embeddings=512, **SMALL), tokenizer=wordpiece,
         kind="embedder", pooling="mean", normalize=True, max_seq_length=256, model_max_length=512),
    dict(name="bert-cross-encoder", family="BERT", like="cross-encoder/ms-marco-MiniLM-L6-v2",
         config=dict(model_type="bert", max_position_embeddings=512, num_labels=1, **SMALL), tokenizer=wordpiece,
         kind="cross-encoder", model_max_length=512),
    dict(name="xlmr-e5-embedder", family="XLM-RoBERTa", like="intfloat/multilingual-e5-small",
         config=dict(max_position_embeddings=514, **XLMR, **SMALL), tokenizer=xlmr_unigram, kind="embedder",
         pooling="mean", normalize=True, max_seq_length=512, model_max_length=512,
         prompts={"query": "query: ", "passage": "passage: "}),
    dict(name="xlmr-m3-embedder", family="XLM-RoBERTa", like="BAAI/bge-m3",
         config=dict(max_position_embeddings=8194, **XLMR, **NARROW), tokenizer=xlmr_unigram, kind="embedder",
         pooling="cls", normalize=True, max_seq_length=8192, model_max_length=8192),
    dict(name="xlmr-reranker-base", family="XLM-RoBERTa", like="BAAI/bge-reranker-base",
         config=dict(max_position_embeddings=514, num_labels=1, **XLMR, **SMALL), tokenizer=xlmr_unigram,
         kind="cross-encoder", model_max_length=512),
    dict(name="xlmr-reranker-v2-m3", family="XLM-RoBERTa", like="BAAI/bge-reranker-v2-m3",
         config=dict(max_position_embeddings=8194, num_labels=1, **XLMR, **NARROW), tokenizer=xlmr_unigram,
         kind="cross-encoder", model_max_length=8192),
    dict(name="modernbert-embedder", family="ModernBERT", like="Alibaba-NLP/gte-modernbert-base",
         config=dict(model_type="modernbert", max_position_embeddings=8192, global_attn_every_n_layers=2,
                     local_attention=64, pad_token_id=3, cls_token_id=1, sep_token_id=2, bos_token_id=1,
                     eos_token_id=2, **SMALL), tokenizer=modernbert_bpe, kind="embedder", pooling="cls",
         normalize=True, max_seq_length=8192, model_max_length=8192),
    dict(name="modernbert-reranker", family="ModernBERT", like="Alibaba-NLP/gte-reranker-modernbert-base",
         config=dict(model_type="modernbert", max_position_embeddings=8192, global_attn_every_n_layers=2,
                     local_attention=64, pad_token_id=3, cls_token_id=1, sep_token_id=2, bos_token_id=1,
                     eos_token_id=2, num_labels=1, **SMALL), tokenizer=modernbert_bpe,
         kind="cross-encoder", model_max_length=8192),
    dict(name="deberta-v2-reranker", family="DeBERTa-v2", like="mixedbread-ai/mxbai-rerank-xsmall-v1",
         config=dict(model_type="deberta-v2", max_position_embeddings=512, num_labels=1, relative_attention=True,
                     position_buckets=256, pos_att_type=["p2c", "c2p"], position_biased_input=False,
                     type_vocab_size=0, norm_rel_ebd="layer_norm", share_att_key=True, max_relative_positions=-1,
                     pad_token_id=0, layer_norm_eps=1e-7, **SMALL), tokenizer=deberta_unigram,
         kind="cross-encoder", model_max_length=512),
    dict(name="qwen3-embedder", family="Qwen3 (decoder-only)", like="Qwen/Qwen3-Embedding-0.6B",
         config=dict(model_type="qwen3", max_position_embeddings=32768, num_key_value_heads=2, head_dim=8,
                     rope_theta=1000000.0, tie_word_embeddings=True, rms_norm_eps=1e-6, hidden_act="silu",
                     **SMALL), tokenizer=qwen_bpe, kind="embedder", pooling="lasttoken", normalize=True,
         max_seq_length=8192, model_max_length=131072, padding_side="left", prompts={"query": QWEN3_PROMPT}),
]

QWEN3 = dict(model_type="qwen3", max_position_embeddings=32768, num_key_value_heads=2, head_dim=8,
             rope_theta=1000000.0, tie_word_embeddings=True, rms_norm_eps=1e-6, hidden_act="silu", **SMALL)
MODELS.append(
    dict(name="qwen3-reranker", family="Qwen3 (decoder-only)", like="Qwen/Qwen3-Reranker-0.6B", config=QWEN3,
         tokenizer=qwen_plain_bpe, kind="yes-no-reranker", model_max_length=8192))

LONG = " ".join(CORPUS[:-100])  # thousands of tokens with any of these vocabularies
SHORT_TEXTS = [QUERIES[0], QUERIES[1], CORPUS[0], CORPUS[1], "x", "Velmora " * 30]
PAIRS = [(QUERIES[0], CORPUS[0]), (QUERIES[0], CORPUS[1]), (QUERIES[1], CORPUS[1]), (QUERIES[1], "짧다"),
         (QUERIES[2], CORPUS[4]), (QUERIES[0], CORPUS[0] + " " + CORPUS[2])]


def build(spec, tmp: Path):
    """The PyTorch model in the hub layout (safetensors + configs), under tmp/<name>."""
    torch.manual_seed(20260)
    tok, specials = spec["tokenizer"]()
    config = dict(spec["config"])
    model_type = config.pop("model_type")
    cfg = AutoConfig.for_model(model_type, vocab_size=tok.get_vocab_size(), **config)
    if model_type == "deberta-v2":
        cfg.pad_token_id = tok.token_to_id("[PAD]")
    if model_type == "bert":
        cfg.pad_token_id = tok.token_to_id("[PAD]")
    classifier = spec["kind"] == "cross-encoder"
    cls = {"cross-encoder": AutoModelForSequenceClassification, "yes-no-reranker": AutoModelForCausalLM}.get(
        spec["kind"], AutoModel)
    cfg.architectures = [type(cls.from_config(cfg)).__name__]
    model = cls.from_config(cfg, attn_implementation="eager").eval()
    folder = tmp / spec["name"]
    model.save_pretrained(folder)
    # BERT's tokenizer class hands the model token_type_ids (its pairs' segment B is type 1); the generic one does not
    names = ["input_ids", "token_type_ids", "attention_mask"] if model_type == "bert" else ["input_ids", "attention_mask"]
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, model_max_length=spec["model_max_length"],
                                   padding_side=spec.get("padding_side", "right"), model_input_names=names, **specials)
    fast.save_pretrained(folder)
    if spec["kind"] == "embedder":
        st = SentenceTransformer(modules=sentence_modules(spec, folder), prompts=spec.get("prompts"))
        st.save(str(folder))
    return folder


def sentence_modules(spec, folder):
    mods = [Transformer(str(folder), max_seq_length=spec["max_seq_length"]),
            Pooling(spec["config"]["hidden_size"], pooling_mode=spec["pooling"])]
    return mods + ([Normalize()] if spec["normalize"] else [])


def reference(spec, folder: Path):
    """sentence-transformers' outputs: vectors of SentenceTransformer.encode, logits of CrossEncoder.predict."""
    long_texts = [LONG[:3000], LONG[:9000]]
    if spec["kind"] == "embedder":
        st = SentenceTransformer(str(folder), device="cpu")
        cases = []
        for name, texts, limit, prompt in [
            ("short", SHORT_TEXTS, None, None),
            ("mixed lengths, over the limit", SHORT_TEXTS[:3] + long_texts, 256, None),
            ("query prompt", QUERIES[:4], None, "query"),
            ("long, cut at the model's own limit", long_texts + SHORT_TEXTS[:2], None, None),
        ]:
            if prompt and prompt not in (spec.get("prompts") or {}):
                continue
            st.max_seq_length = limit or spec["max_seq_length"]
            vectors = st.encode(texts, prompt_name=prompt, batch_size=4, convert_to_numpy=True)
            lengths = [len(st.tokenize([(st.prompts.get(prompt, "") if prompt else "") + t])["input_ids"][0])
                       for t in texts]
            cases.append(dict(name=name, texts=texts, max_length=limit, prompt=st.prompts.get(prompt) if prompt
                              else None, tokens=lengths, vectors=vectors.astype(float).round(7).tolist()))
        if spec["name"] == "bert-embedder":
            cases += other_poolings(spec, folder, SHORT_TEXTS + long_texts[:1])
        return dict(pooling=spec["pooling"], normalize=spec["normalize"],
                    padding_side=spec.get("padding_side", "right"), max_seq_length=spec["max_seq_length"],
                    cases=cases)
    if spec["kind"] == "yes-no-reranker":
        return yes_no_reference(spec, folder, long_texts)
    cases = []
    for name, pairs, limit in [("short", PAIRS, None),
                               ("over the limit", PAIRS[:2] + [(QUERIES[0], t) for t in long_texts], 256),
                               ("long, cut at the model's own limit", [(QUERIES[1], t) for t in long_texts], None)]:
        ce = CrossEncoder(str(folder), device="cpu", max_length=limit or spec["model_max_length"])
        logits = ce.predict(pairs, batch_size=4, activation_fn=torch.nn.Identity(), convert_to_numpy=True)
        lengths = [len(ce.tokenizer(q, d, truncation=True, max_length=ce.max_length)["input_ids"]) for q, d in pairs]
        cases.append(dict(name=name, pairs=[list(p) for p in pairs], max_length=limit, tokens=lengths,
                          scores=np.asarray(logits, dtype=float).reshape(len(pairs)).round(7).tolist()))
    return dict(cases=cases)


def other_poolings(spec, folder, texts):
    """Every other pooling mode of sentence-transformers on the same transformer, unnormalised (a norm is a check too)."""
    cases = []
    for mode in ["max", "mean_sqrt_len_tokens", "weightedmean", "cls", "lasttoken"]:
        st = SentenceTransformer(modules=[Transformer(str(folder), max_seq_length=spec["max_seq_length"]),
                                          Pooling(spec["config"]["hidden_size"], pooling_mode=mode)], device="cpu")
        vectors = st.encode(texts, batch_size=4, convert_to_numpy=True)
        cases.append(dict(name=f"pooling {mode}", texts=texts, max_length=None, pooling=mode, normalize=False,
                          tokens=[len(st.tokenize([t])["input_ids"][0]) for t in texts],
                          vectors=vectors.astype(float).round(7).tolist()))
    return cases


def yes_no_reference(spec, folder, long_texts):
    """The Qwen3-Reranker model card's scoring on the PyTorch model: P(yes), and logit_yes - logit_no."""
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    tokenizer = PreTrainedTokenizerFast.from_pretrained(folder)
    cases = []
    for name, pairs, limit in [("short", PAIRS, None),
                               ("over the limit", PAIRS[:2] + [(QUERIES[0], t) for t in long_texts], 256),
                               ("long, cut at the model's own limit", [(QUERIES[1], t) for t in long_texts], None)]:
        scores, p_yes, lengths = yes_no_reranker.reference_scores(model, tokenizer, pairs,
                                                                  limit or spec["model_max_length"])
        cases.append(dict(name=name, pairs=[list(p) for p in pairs], max_length=limit, tokens=lengths,
                          scores=np.round(scores, 7).tolist(), p_yes=np.round(p_yes, 7).tolist()))
    return dict(cases=cases)


KEEP = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "modules.json",
        "sentence_bert_config.json", "config_sentence_transformers.json", "1_Pooling", "2_Normalize"]


def kv_cache_export(dest: Path, tokenizer_from: Path):
    """A graph shaped like a text-generation export: besides the ids and the mask it takes a KV cache input, which
    ragrank must refuse at load. (Its output is the ids as floats: it never gets to run.)"""
    import onnx
    from onnx import TensorProto, helper

    dims = ["batch_size", "sequence_length"]
    graph = helper.make_graph(
        [helper.make_node("Cast", ["input_ids"], ["ids_f"], to=TensorProto.FLOAT),
         helper.make_node("Unsqueeze", ["ids_f", "axis"], ["last_hidden_state"]),
         helper.make_node("Identity", ["past_key_values.0.key"], ["present.0.key"])],
        "kv_cache",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, dims),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, dims),
         helper.make_tensor_value_info("past_key_values.0.key", TensorProto.FLOAT,
                                       ["batch_size", 2, "past_sequence_length", 8])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*dims, 1]),
         helper.make_tensor_value_info("present.0.key", TensorProto.FLOAT,
                                       ["batch_size", 2, "past_sequence_length", 8])],
        [helper.make_tensor("axis", TensorProto.INT64, [1], [-1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "onnx").mkdir(parents=True)
    onnx.save(model, str(dest / "onnx" / "model.onnx"))
    shutil.copyfile(tokenizer_from / "tokenizer.json", dest / "tokenizer.json")


def main():
    only = set(sys.argv[1:])
    refs_path = OUT.parent / "arch-reference.json"
    refs = json.loads(refs_path.read_text()) if only and refs_path.is_file() else {}
    with tempfile.TemporaryDirectory() as tmp:
        for spec in MODELS:
            if only and spec["name"] not in only:
                continue
            folder = build(spec, Path(tmp))
            dest = OUT / spec["name"]
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
            result = export_onnx.export(str(folder), str(dest), log=lambda m: None)
            for name in KEEP:  # the exporter's copies replaced by the source's own, byte for byte
                if result["task"] == "yes-no" and name == "tokenizer.json":
                    continue  # the exporter wrote the prompt into it
                src = folder / name
                if src.is_dir():
                    shutil.copytree(src, dest / name, dirs_exist_ok=True)
                elif src.is_file():
                    shutil.copyfile(src, dest / name)
            for stray in set(p.name for p in dest.iterdir()) - set(KEEP) - {"onnx"}:
                (dest / stray).unlink()
            size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
            assert size < 1_000_000, f"{spec['name']} is {size} bytes"
            refs[spec["name"]] = dict(family=spec["family"], like=spec["like"], kind=spec["kind"],
                                      bytes=size, export_max_abs_diff=float(f"{result['max_abs_diff']:.2e}"),
                                      inputs=result["inputs"], **reference(spec, folder))
            print(f"{spec['name']}: {size} bytes, onnxruntime vs PyTorch {result['max_abs_diff']:.1e}")
    kv_cache_export(OUT.parent / "arch-bad" / "kv-cache", OUT / "qwen3-embedder")
    refs_path.write_text(json.dumps(refs, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
