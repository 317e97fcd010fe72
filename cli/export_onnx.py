"""Exports a Hugging Face model (a hub id or a folder with PyTorch / safetensors weights) to the ONNX folder layout
ragrank loads: onnx/model.onnx (+ onnx/model.onnx_data past 2 GB), the tokenizer as tokenizer.json, and every
config file of the source (config.json, tokenizer_config.json, the sentence-transformers files).

Run by `ragrank convert`; also imported by scripts/models/make_arch_models.py, so the committed parity fixtures are
made by this very exporter. Needs torch, transformers, onnx and onnxruntime (cli/requirements-convert.txt).

    python cli/export_onnx.py SOURCE OUTPUT [--dtype fp32|int8|uint8|q8] [--revision REV]

The export is checked before it is kept: onnxruntime must agree with PyTorch on a padded batch of sample texts
(max abs difference 1e-3 of the output), else the exit status is 1. Exit status 3: a dependency is missing.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

MISSING = 3
try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    import transformers
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM, AutoModelForSequenceClassification, AutoTokenizer

    import yes_no_reranker as yes_no
except ImportError as e:  # the CLI turns this into the exact install command
    print(f"missing Python package: {e.name}", file=sys.stderr)
    sys.exit(MISSING)

# The files of a sentence-transformers / hub folder that describe the model rather than hold weights.
CONFIG_FILES = [
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
]
# dtype -> (file name of transformers.js / Optimum, onnxruntime weight type)
QUANTIZED = {"int8": ("model_int8.onnx", "QInt8"), "uint8": ("model_uint8.onnx", "QUInt8"), "q8": ("model_quantized.onnx", "QUInt8")}
# Decoder-only families: causal attention, rotary positions fed as `position_ids`, no KV cache in the export.
DECODERS = {"qwen2", "qwen3", "llama", "mistral", "gemma", "gemma2", "gemma3_text", "phi3"}
# protobuf's 2 GB limit, with room to spare; the environment variable lets a test make a tiny model external
EXTERNAL_DATA_OVER = int(os.environ.get("RAGRANK_EXTERNAL_DATA_OVER", 1_800_000_000))
SAMPLES = ["A short query.", "한국어 문장과 English words, mixed: 123.", "word " * 40]
TOLERANCE = 1e-3


def is_classifier(config) -> bool:
    return any(a.endswith("ForSequenceClassification") for a in (config.architectures or []))


def input_names(config) -> list:
    names = ["input_ids", "attention_mask"]
    # BERT's segment embeddings; XLM-R (1 row), DeBERTa-v3 (0 rows) and ModernBERT have none worth feeding.
    if getattr(config, "type_vocab_size", 0) > 1:
        names.append("token_type_ids")
    if config.model_type in DECODERS:
        names.append("position_ids")
    return names


class Exported(torch.nn.Module):
    """The model behind keyword inputs, returning one tensor: logits, or the last hidden state."""

    def __init__(self, model, names, classifier):
        super().__init__()
        self.model, self.names, self.classifier = model, names, classifier

    def forward(self, *inputs):
        kwargs = dict(zip(self.names, inputs))
        if self.model.config.model_type in DECODERS:
            kwargs["use_cache"] = False
        out = self.model(**kwargs)
        return out.logits if self.classifier else out.last_hidden_state


def load(source: str, revision=None):
    """The model and what it is exported as: "classifier" (cross-encoder logits), "yes-no" (a decoder reranker,
    see yes_no_reranker.py) or "encoder" (token vectors for an Embedder)."""
    config = AutoConfig.from_pretrained(source, revision=revision)
    if is_classifier(config):
        task, cls = "classifier", AutoModelForSequenceClassification
    elif yes_no.is_yes_no_reranker(config, has_file(source, "modules.json", revision)):
        task, cls = "yes-no", AutoModelForCausalLM
    else:
        task, cls = "encoder", AutoModel
    # eager attention traces to plain MatMul/Softmax; the SDPA and flash paths do not all export
    model = cls.from_pretrained(source, revision=revision, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
    return config, model, tokenizer, task


def has_file(source, name, revision) -> bool:
    return (Path(source) / name).is_file() if Path(source).is_dir() else hub_file(source, name, revision) is not None


def feeds(tokenizer, names, texts, padding_side="right"):
    tokenizer.padding_side = padding_side
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    enc = tokenizer(texts, padding=True, truncation=True, max_length=128, return_tensors="pt")
    mask = enc["attention_mask"]
    out = {"input_ids": enc["input_ids"], "attention_mask": mask}
    if "token_type_ids" in names:
        out["token_type_ids"] = enc.get("token_type_ids", torch.zeros_like(mask))
    if "position_ids" in names:
        out["position_ids"] = (mask.cumsum(-1) - 1).clamp(min=0)
    return out


def export(source: str, output: str, dtype: str = "fp32", revision=None, log=print,
           instruction=yes_no.INSTRUCTION) -> dict:
    """Writes OUTPUT/onnx/model.onnx (and the quantized file of `dtype`); returns what was written and checked."""
    config, model, tokenizer, task = load(source, revision)
    names = input_names(config)
    if task == "yes-no":
        wrapper = yes_no.YesNoLogits(model, *yes_no.answer_ids(tokenizer)).eval()
    else:
        wrapper = Exported(model, names, task == "classifier").eval()
    classifier = task != "encoder"
    # decoder embedders are checked left-padded, as they run; the yes/no graph finds the last token itself
    side = "left" if task == "encoder" and config.model_type in DECODERS else "right"
    out = Path(output)
    (out / "onnx").mkdir(parents=True, exist_ok=True)
    sample = feeds(tokenizer, names, SAMPLES)
    dynamic = {n: {0: "batch_size", 1: "sequence_length"} for n in names}
    output_name = "logits" if classifier else "last_hidden_state"
    dynamic[output_name] = {0: "batch_size"} if classifier else {0: "batch_size", 1: "sequence_length"}
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = Path(tmp) / "model.onnx"
        torch.onnx.export(
            wrapper,
            tuple(sample[n] for n in names),
            str(raw),
            input_names=names,
            output_names=[output_name],
            dynamic_axes=dynamic,
            opset_version=17,
            dynamo=False,
        )
        graph = onnx.load(str(raw))
        target = out / "onnx" / "model.onnx"
        for stale in [target, out / "onnx" / "model.onnx_data"]:
            stale.unlink(missing_ok=True)
        big = sum(t.ByteSize() for t in graph.graph.initializer) > EXTERNAL_DATA_OVER
        onnx.save(graph, str(target), save_as_external_data=big, all_tensors_to_one_file=True, location="model.onnx_data")
    written = [str(target)] + ([str(target) + "_data"] if big else [])
    diff = check(target, wrapper, tokenizer, names, side)
    log(f"onnx/model.onnx: max |onnxruntime - PyTorch| = {diff:.2e} on {len(SAMPLES)} padded samples")
    if dtype in QUANTIZED:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        name, weight_type = QUANTIZED[dtype]
        quantize_dynamic(str(target), str(out / "onnx" / name), weight_type=getattr(QuantType, weight_type),
                         op_types_to_quantize=["MatMul", "Gemm"], use_external_data_format=big)
        written.append(str(out / "onnx" / name))
    elif dtype != "fp32":
        raise SystemExit(f"--dtype must be fp32, {', '.join(QUANTIZED)}; got {dtype}")
    copy_configs(source, out, tokenizer, revision)
    if task == "yes-no":
        yes_no.write_template(out / "tokenizer.json", tokenizer, instruction)
    return {"files": written, "max_abs_diff": diff, "inputs": names, "output": output_name, "task": task}


def check(path, wrapper, tokenizer, names, side) -> float:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    sample = feeds(tokenizer, names, list(reversed(SAMPLES)), side)
    with torch.no_grad():
        want = wrapper(*(sample[n] for n in names)).numpy()
    got = session.run(None, {n: sample[n].numpy() for n in names})[0]
    mask = sample["attention_mask"].numpy().astype(bool)
    diff = np.abs(got - want)
    diff = diff if diff.ndim == 2 else diff[mask]  # padding positions of token outputs are never read
    worst = float(diff.max())
    if not worst <= TOLERANCE:
        raise SystemExit(f"the ONNX export disagrees with PyTorch: max abs difference {worst:.3g} > {TOLERANCE}")
    return worst


def copy_configs(source, out: Path, tokenizer, revision):
    """tokenizer.json from the tokenizer itself (a slow-only repo gets one converted), the rest copied as they are."""
    tokenizer.save_pretrained(str(out))
    local = Path(source)
    for name in CONFIG_FILES[:1] + CONFIG_FILES[4:]:
        src = local / name if local.is_dir() else hub_file(source, name, revision)
        if src is not None and Path(src).is_file():
            shutil.copyfile(src, out / name)
    for module in json.loads((out / "modules.json").read_text()) if (out / "modules.json").is_file() else []:
        path = module.get("path", "")
        if path and (local / path).is_dir():
            shutil.copytree(local / path, out / path, dirs_exist_ok=True)
        elif path and not local.is_dir():
            cfg = hub_file(source, f"{path}/config.json", revision)
            if cfg:
                (out / path).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(cfg, out / path / "config.json")


def hub_file(repo, name, revision):
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    try:
        return hf_hub_download(repo, name, revision=revision)
    except EntryNotFoundError:
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source")
    p.add_argument("output")
    p.add_argument("--dtype", default="fp32", choices=["fp32", *QUANTIZED])
    p.add_argument("--revision")
    p.add_argument("--instruction", default=yes_no.INSTRUCTION, help="the task of a yes/no reranker's prompt")
    a = p.parse_args()
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    result = export(a.source, a.output, a.dtype, a.revision, log=log, instruction=a.instruction)
    print(json.dumps(result))


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
