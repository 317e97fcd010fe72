"""How the Python generators write their JSON fixtures: indented, with the small containers on one line, so a
fixture stays readable and a regenerated one diffs line by line.

Used by scripts/fixtures/make_bm25s_parity.py, make_trec_eval.py and scripts/models/make_reference_outputs.py;
each passes its own rule for what fits on one line (its committed fixture was written with that rule).
"""

from __future__ import annotations

import json
import os
from typing import Callable

COMPACT = (",", ":")
SPACED = (", ", ": ")  # json.dumps' default


def indented_json(obj, inline: Callable[[object], bool], separators: tuple[str, str] = COMPACT) -> str:
    """JSON indented by two spaces, except the non-empty dicts and lists that `inline` accepts, written on one
    line with `separators`; empty ones are {} and []."""

    def enc(o, indent: int) -> str:
        pad = "  " * indent
        if isinstance(o, (dict, list)) and (not o or inline(o)):
            return json.dumps(o, ensure_ascii=False, separators=separators)
        if isinstance(o, dict):
            items = [f"{pad}  {json.dumps(k, ensure_ascii=False)}: {enc(v, indent + 1)}" for k, v in o.items()]
            return "{\n" + ",\n".join(items) + "\n" + pad + "}"
        if isinstance(o, list):
            return "[\n" + ",\n".join(f"{pad}  {enc(x, indent + 1)}" for x in o) + "\n" + pad + "]"
        return json.dumps(o, ensure_ascii=False)

    return enc(obj, 0)


def scalars(o) -> bool:
    """A list of numbers, strings, booleans or nulls, or a dict of them."""
    values = o.values() if isinstance(o, dict) else o
    return all(not isinstance(v, (dict, list)) for v in values)


def write_fixture(path: str, text: str) -> None:
    """Writes text and a final newline (LF on every platform), creating the folder if needed."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text + "\n")
