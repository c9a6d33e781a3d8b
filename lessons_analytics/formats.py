"""How a number reads on the terminal: the one owner of shares, percentages, units and rounding.

Choices, so that every table and the demo read alike:
- a share is its counts and a whole percentage, ``6/17 (35 %)``; a fraction the documents carry
  as 0..1 (top-3 share, large share, share of active time) prints as a percentage too, never as
  0.353 beside a 35 % elsewhere;
- a percentage is whole; a share that is neither none nor all never rounds to ``0 %`` or
  ``100 %``: it prints ``<1 %`` or ``>99 %``;
- a float keeps three significant digits (trailing zeros dropped), and two numbers that are
  compared keep as many more as it takes to print them differently (``1.01`` beside ``1``,
  never ``1.0`` beside ``1.0``);
- a unit follows its number after a space: ``210 s``, ``0.87 h``, ``20 KiB``, ``12,345 tokens``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path

_MAX_PLACES = 9  # two floats equal to nine decimals print equal: they are equal for a reader


def integer(value: int) -> str:
    """``12,345``."""
    return f"{value:,}"


def _places(value: float) -> int:
    """Decimal places that leave three significant digits (none for 100 and above)."""
    if value == 0 or not math.isfinite(value):
        return 0
    return max(0, 2 - math.floor(math.log10(abs(value))))


def _fixed(value: float, places: int) -> str:
    text = f"{value:,.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def number(value: float | int | None) -> str:
    """An int with thousands separators; a float to three significant digits; None ``-``."""
    if value is None:
        return "-"
    if isinstance(value, int):
        return integer(value)
    return _fixed(value, _places(value))


def distinct(value: float, other: float, places: int | None = None) -> tuple[str, str]:
    """``value`` and ``other`` as :func:`number` prints them (or to `places` decimals), with
    more places when that is what it takes to tell two different numbers apart:
    ``(1.01, 1.0)`` -> ``("1.01", "1")``, ``(1.0004, 1.0)`` -> ``("1.0004", "1")``."""
    if places is None:
        places = max(_places(value), _places(other))
    while (
        value != other and _fixed(value, places) == _fixed(other, places) and places < _MAX_PLACES
    ):
        places += 1
    return _fixed(value, places), _fixed(other, places)


def percent(fraction: float | None) -> str:
    """A fraction of 0..1 as a whole percentage: ``0.353`` -> ``35 %``; ``0.004`` -> ``<1 %``,
    ``0.996`` -> ``>99 %`` (a part is never shown as none or all); None ``-``."""
    if fraction is None:
        return "-"
    points = 100 * fraction
    if 0 < points < 1:
        return "<1 %"
    if 99 < points < 100:
        return ">99 %"
    return f"{math.floor(points + 0.5)} %"  # half up, as a reader rounds: 12.5 -> 13


def share(count: int, total: int) -> str:
    """``6/17 (35 %)``; no total, no percentage: ``0/0``."""
    if not total:
        return f"{integer(count)}/0"
    return f"{integer(count)}/{integer(total)} ({percent(count / total)})"


def seconds(value: float | None) -> str:
    """``210 s``, ``4.5 s``; None ``-``."""
    return "-" if value is None else f"{number(value)} s"


def hours(value: float | None) -> str:
    """``0.87 h``, ``12.5 h``; None ``-``."""
    return "-" if value is None else f"{number(value)} h"


def size(value: float) -> str:
    """Bytes in the binary unit that keeps the number short: ``512 bytes``, ``20 KiB``,
    ``1.5 MiB``."""
    amount, unit = float(value), "bytes"
    for bigger in ("KiB", "MiB", "GiB"):
        if abs(amount) < 1024:
            break
        amount, unit = amount / 1024, bigger
    return f"{integer(int(amount))} bytes" if unit == "bytes" else f"{number(amount)} {unit}"


def tokens(value: float) -> str:
    """``12,345 tokens`` (a token count is whole: fractions are rounded)."""
    return f"{integer(round(value))} tokens"


def short_names(paths: Iterable[str]) -> dict[str, str]:
    """A short name for each base path, unique among `paths`: the project folder's name
    (the folder holding ``LESSONS/``, or the base folder itself when it has another name),
    with parent folders added, one at a time, to the names two bases share:
    ``/a/app/LESSONS`` and ``/b/app/LESSONS`` -> ``a/app`` and ``b/app``."""
    unique = sorted(set(paths))
    parts = {p: _project_parts(p) for p in unique}
    depth = dict.fromkeys(unique, 1)
    while True:
        names = {p: "/".join(parts[p][-depth[p] :]) for p in unique}
        clashes = [p for p in unique if sum(n == names[p] for n in names.values()) > 1]
        grow = [p for p in clashes if depth[p] < len(parts[p])]
        if not grow:
            return names
        for p in grow:
            depth[p] += 1


def _project_parts(path: str) -> Sequence[str]:
    folder = Path(path)
    if folder.name == "LESSONS" and folder.parent != folder:
        folder = folder.parent
    return [part for part in folder.parts if part not in ("/", "\\")] or [path]


def legend(names: dict[str, str]) -> str:
    """``name = /full/path`` a line, in the order of the names."""
    return "\n".join(f"{name} = {path}" for path, name in sorted(names.items(), key=_by_name))


def _by_name(item: tuple[str, str]) -> tuple[str, str]:
    return item[1], item[0]
