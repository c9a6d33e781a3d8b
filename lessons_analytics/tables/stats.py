"""The table of a base's sleep signs."""

from __future__ import annotations

from typing import Any

from lessons_analytics import render
from lessons_analytics.stats import BaseStats


def stats(results: list[BaseStats]) -> str:
    return "\n".join(_text(result) for result in results)


def _text(result: BaseStats) -> str:
    rows: list[list[Any]] = []
    for sign in result.signs:
        value = sign.value
        if isinstance(value, dict):
            value = ", ".join(f"{k}={render.fmt(v)}" for k, v in value.items())
        threshold = sign.threshold
        if isinstance(threshold, dict):
            threshold = " / ".join(render.fmt(v) for v in threshold.values())
        rows.append(
            [
                sign.name,
                value,
                threshold,
                "FIRED" if sign.fired else "",
                ", ".join(sign.lessons[:8]) + (" ..." if len(sign.lessons) > 8 else ""),
            ]
        )
    head = (
        f"{result.base}  (as of {result.as_of}; sleep due: {'yes' if result.sleep_due else 'no'})"
    )
    return (
        head + "\n" + render.table(rows, ["sign", "value", "threshold", "fired", "lessons"]) + "\n"
    )
