"""npm run setup:models: builds the trained embedding models obtainable here into bench/.cache/models/<name>/, each
a folder that ragrank loads with `Embedder.load(dir)` and no options (ONNX, tokenizer.json and the
sentence-transformers files) and that sentence-transformers loads too (model.safetensors, where the source has
PyTorch weights). Each folder is checked, then gets reference.json (texts and reference vectors, for
__test__/models/real-models.spec.mjs) and READY (the date and the check figures). Built-and-checked folders are skipped;
downloads are cached in bench/.cache/downloads, so a second run works offline. Weights are never committed.

    python3 scripts/models/real/setup.py [NAME ...] [--force]

Needs .venv-export (`npm run setup:export`: torch, transformers, sentence-transformers, onnx, onnxruntime) and
dist/ (`npm run build:ts`). Names: multilingual-e5-small, multilingual-e5-small-int8, all-mpnet-base-v2,
e5-small-v2-int8."""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
VENV_PYTHON = REPO / ".venv-export" / "bin" / "python"
NEEDED = ["torch", "transformers", "sentence_transformers", "onnx", "onnxruntime", "tokenizers", "safetensors"]


def ensure_interpreter() -> None:
    """Re-runs under .venv-export when the current Python lacks its packages; says what to install otherwise."""
    import importlib.util

    missing = [m for m in NEEDED if importlib.util.find_spec(m) is None]
    if not missing:
        return
    # compare unresolved: a venv python is a symlink to the very interpreter it wraps
    if VENV_PYTHON.is_file() and Path(sys.prefix).resolve() != VENV_PYTHON.parents[1].resolve():
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), *sys.argv])
    sys.exit(f"[setup:models] missing Python packages: {', '.join(missing)}. Install them with\n"
             f"    npm run setup:export   (python3 -m venv .venv-export && .venv-export/bin/pip install -r "
             f"cli/requirements-convert.txt)\nthen run npm run setup:models again.")


def main() -> None:
    ensure_interpreter()
    import argparse

    sys.path.insert(0, str(HERE))
    from builders import BUILDERS
    from common import MODELS, is_ready, log

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help=f"default: all of {', '.join(BUILDERS)}")
    p.add_argument("--force", action="store_true", help="rebuild even when READY")
    a = p.parse_args()
    unknown = [n for n in a.names if n not in BUILDERS]
    if unknown:
        sys.exit(f"unknown model {', '.join(unknown)}; known: {', '.join(BUILDERS)}")
    failed = []
    for name in a.names or list(BUILDERS):
        folder = MODELS / name
        if is_ready(folder) and not a.force:
            log(f"{name}: already built and checked ({(folder / 'READY').read_text().strip()}); --force rebuilds")
            continue
        log(f"{name}: building into {folder}")
        try:
            BUILDERS[name](folder)
        except SystemExit as e:
            log(f"{name}: FAILED: {e}")
            failed.append(name)
    if failed:
        sys.exit(f"[setup:models] failed: {', '.join(failed)}")


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
