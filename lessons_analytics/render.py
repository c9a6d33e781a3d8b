"""Plain-text tables for the default (human) output of the commands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def share(count: int, total: int) -> str:
    """``37/130 (28.5%)``: a share is always shown beside its counts."""
    if not total:
        return f"{count}/0"
    return f"{count}/{total} ({100 * count / total:.1f}%)"


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


def _looks_numeric(text: str) -> bool:
    stripped = text.replace(",", "").replace(".", "").replace("-", "").replace("%", "")
    return stripped.isdigit() or text == "-"
