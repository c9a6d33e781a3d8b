"""The grid of the terminal tables: cells formatted as `formats` writes numbers, columns
aligned. Every renderer of `tables/` (and `query`'s table) draws with it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lessons_analytics import formats


def fmt(value: Any) -> str:
    """A cell: numbers as :mod:`formats` writes them, None ``-``, booleans yes/no."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return formats.number(value)
    return str(value)


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    cells = [[fmt(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    numeric = [
        all(_looks_numeric(r[i]) for r in cells) and bool(cells) for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(list(headers)), "  ".join("-" * w for w in widths)]
    out.extend(line(row) for row in cells)
    return "\n".join(out)


# a number, a share or a number with its unit: such columns align right
_NUMERIC = re.compile(r"^(?!\d{4}-)[<>+-]?\d")  # not a date: 2026-W46, 2026-11-02


def _looks_numeric(text: str) -> bool:
    return bool(_NUMERIC.match(text)) or text == "-"
