"""How much an int8 model's vectors depend on the onnxruntime build: runs the folder's reference texts through the
onnxruntime installed with this Python (both session setups: ragrank's, onnxruntime's default) and compares with
the folder's reference.json (written by setup.py under onnxruntime 1.30 with ragrank's setup). For example

    python3 -m venv /tmp/ort120 && /tmp/ort120/bin/pip install onnxruntime==1.20.1 tokenizers numpy
    /tmp/ort120/bin/python scripts/models/real/ort_probe.py bench/.cache/models/e5-small-v2-int8

Needs only numpy, onnxruntime and tokenizers."""

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checks import ort_vectors, read_reference  # noqa: E402
from common import cosines  # noqa: E402


def main() -> None:
    folder = Path(sys.argv[1])
    ref = read_reference(folder)
    cases = [{"kind": c["kind"], "text": c["text"]} for c in ref["cases"]]
    want = np.array([c["vector"] for c in ref["cases"]], np.float64)
    prompts = json.loads((folder / "config_sentence_transformers.json").read_text()).get("prompts", {})
    max_length = json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"]
    for fusions in ("ragrank", "default"):
        cos = cosines(ort_vectors(folder, cases, prompts, max_length, fusions=fusions), want)
        print(f"onnxruntime {ort.__version__}, {fusions} session vs reference.json ({ref['reference']}): "
              f"cosine min {cos.min():.6f}, mean {cos.mean():.6f}")


if __name__ == "__main__":
    main()
