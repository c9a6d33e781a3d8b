"""The table of a base's sleep signs: each sign's number, the rule it fires on, its lessons.

A count sign (most of them) counts lessons; its rule column says what makes a lesson count,
with units. The three signs that compare one measure with a threshold of the same unit
(class-share, costly-ritual, costly-body) print both with enough digits to differ when they
do (:func:`formats.distinct`), so a sign that fired never reads ``1.0 > 1.0``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lessons_analytics import formats
from lessons_analytics.tables import grid
from lessons_analytics.tables.names import BaseNames, finish

if TYPE_CHECKING:  # the signs module needs DuckDB; the renderer only its types
    from lessons_analytics.signs import BaseStats, Sign

WIDTH = 100  # the lessons column takes what the others leave of it
_MIN_LESSONS = 12


def _n(value: Any) -> str:
    return formats.number(value)


# sign -> what its threshold means, from the threshold value(s)
_RULES: dict[str, Callable[[Any], str]] = {
    "candidate-needs-verdict": lambda t: (
        f"≥ {_n(t['independent_hits'])} hits; {_n(t['aged_hits'])} if > {_n(t['age_days'])} d"
    ),
    "candidates-without-verdict": lambda t: f"> {_n(t)} candidates",
    "stale-candidate": lambda t: f"idle > {_n(t)} d",
    "class-share": lambda t: f"≥ {formats.percent(t)} of hits",
    "active-without-hit": lambda t: f"no hit for > {_n(t)} d",
    "active-unconfirmed": lambda t: "helped is not true",
    "fat-body": lambda t: f"body > {formats.size(t)}",
    "journal-share": lambda t: f"journal > {formats.percent(t)} of body",
    "recalled-but-failed": lambda t: f"≥ {_n(t)} recalled hits",
    "never-recalled": lambda t: f"≥ {_n(t)} known, 0 recalled",
    "helped-disagrees": lambda t: "helped vs verdict",
    "index-layout": lambda t: "a check rule fails",
}
NOTE = "value: lessons the rule holds for (index-layout: failed rules), or a measure with its unit"
_UNITS = {"costly-ritual": " h/week", "costly-body": " tokens/week"}


def stats(results: list[BaseStats]) -> str:
    name = BaseNames(r.base for r in results)
    body = "\n\n".join(_text(result, name) for result in results)
    return finish(body, name, [NOTE])


def _text(result: BaseStats, name: BaseNames) -> str:
    cells = [_cells(sign) for sign in result.signs]
    headers = ["sign", "value", "fires when", "fired", "lessons"]
    used = sum(max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers[:3]))
    budget = max(_MIN_LESSONS, WIDTH - used - len("fired") - 4 * 2)
    rows = [[*c, "FIRED" if s.fired else "", _lessons(s.lessons, budget)]
            for c, s in zip(cells, result.signs, strict=True)]  # fmt: skip
    head = f"{name(result.base)}  (as of {result.as_of}; sleep due: " + (
        "yes)" if result.sleep_due else "no)"
    )
    table = grid.table(rows, headers)
    classes = [
        f"class-share: {s.value['class']} holds {formats.percent(s.value['share'])} of the hits"
        for s in result.signs
        if s.name == "class-share" and isinstance(s.value, dict)
    ]
    return "\n".join([head, table, *classes])


def _cells(sign: Sign) -> list[str]:
    value, threshold = sign.value, sign.threshold
    if sign.name in _UNITS and isinstance(threshold, int | float):
        unit = _UNITS[sign.name]
        if not isinstance(value, int | float):  # no warehouse: nothing measured
            return [sign.name, "-", f"> {formats.number(threshold)}{unit}"]
        shown, limit = formats.distinct(float(value), float(threshold))
        return [sign.name, shown + unit, f"> {limit}{unit}"]
    if sign.name == "class-share" and isinstance(value, dict):
        shown, limit = formats.distinct(100 * value["share"], 100 * threshold, places=0)
        return [sign.name, f"{shown} %", f"≥ {limit} % of hits"]
    rule = _RULES.get(sign.name)
    if rule is not None and (threshold is not None or sign.name in _NO_THRESHOLD):
        text = rule(threshold)
    else:
        text = _generic(threshold)
    return [sign.name, _generic(value), text]


_NO_THRESHOLD = {"active-unconfirmed", "helped-disagrees", "index-layout"}


def _generic(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={grid.fmt(v)}" for k, v in value.items())
    return grid.fmt(value)


def _lessons(ids: list[str], budget: int) -> str:
    """As many ids as fit in `budget` characters, then ``+N`` for the rest."""
    shown: list[str] = []
    for i, lesson in enumerate(ids):
        rest = len(ids) - i - 1
        candidate = ", ".join([*shown, lesson]) + (f" +{rest}" if rest else "")
        if shown and len(candidate) > budget:
            return ", ".join(shown) + f" +{len(ids) - len(shown)}"
        shown.append(lesson)
    return ", ".join(shown)
