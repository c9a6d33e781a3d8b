"""Shares with their Wilson interval, week-over-week deltas with arrows (ISO weeks: weeks.py)."""

from __future__ import annotations

from typing import Any

from lessons_analytics.proportions import wilson

DIRECTION_ONLY_BELOW = 15  # a share over fewer sessions or hits shows direction only
UP, DOWN, FLAT = "▲", "▼", "→"
SMALL = "†"  # the small-sample mark; its meaning is said once per table (blocks.py)

# Which way is good, for every number the report compares week over week: +1 a rise is
# good, -1 a rise is bad. The one place this is defined; colours and words follow from it.
GOOD_DIRECTION: dict[str, int] = {
    "coverage": +1,  # more sessions recalled a lesson
    "index_read": +1,  # more sessions read the index
    "blind_sessions": -1,  # more sessions read the index and saw no active lesson
    "head_20_60": -1,  # more index reads cut short by head -20…60
    "hits": -1,  # more repeated failures
    "hits_recalled": -1,  # more failures although the lesson was in context
    "hits_not_recalled": -1,  # more failures where the lesson never surfaced
    "body_tokens": -1,  # more tokens spent reading lesson bodies
    "large_body_reads": -1,  # more reads of bodies over the large-body size
    "ritual_hours": -1,  # more session time spent in rituals
    "rate": -1,  # hits per 100 exposed sessions (the effect section)
}


def share(count: int | None, total: int | None) -> dict[str, Any]:
    """A share as the report prints it: value, counts, 95 % interval, direction-only flag."""
    k, n = int(count or 0), int(total or 0)
    interval = wilson(k, n)
    return {
        "count": k,
        "total": n,
        "share": k / n if n else None,
        "ci95": list(interval) if interval else None,
        "direction_only": n < DIRECTION_ONLY_BELOW,
    }


def delta(current: float | None, previous: float | None, *, is_share: bool) -> dict[str, Any]:
    """Week-over-week change: the difference (percentage points for a share) and an arrow."""
    if current is None or previous is None:
        return {"previous": previous, "delta": None, "arrow": "–"}
    change = current - previous
    if is_share:
        change *= 100
    arrow = FLAT if abs(change) < 1e-9 else (UP if change > 0 else DOWN)
    return {"previous": previous, "delta": change, "arrow": arrow}


def fmt_share(item: dict[str, Any]) -> str:
    """``45/104 = 43.3 %`` with the 95 % interval on a second line (``[34.2–52.9]``; HTML
    shows it smaller, Markdown on the same line), and the small-sample mark ``†`` below the
    threshold: its meaning is written once under the table, not in every cell."""
    if not item["total"]:
        return f"{item['count']}/0 (no data)"
    lo, hi = item["ci95"]
    counts = f"{item['count']}/{item['total']} = {100 * item['share']:.1f} %"
    return f"{counts}{SMALL if item['direction_only'] else ''}\n[{100 * lo:.1f}–{100 * hi:.1f}]"


def tone(key: str, change: float | None) -> str:
    """``good``, ``bad`` or ``""`` (unchanged, unknown, or a number without a direction)."""
    direction = GOOD_DIRECTION.get(key, 0)
    if change is None or abs(change) < 1e-9 or not direction:
        return ""
    return "good" if change * direction > 0 else "bad"


TONE_WORDS = {"good": "better", "bad": "worse"}


def fmt_delta(
    item: dict[str, Any], *, is_share: bool, digits: int = 1, key: str | None = None
) -> str:
    """``▲ +25.0 pp``; with ``key`` the meaning follows (``▲ +25.0 pp, worse``), so the
    Markdown says in words what the HTML says in colour."""
    if item["delta"] is None:
        return "–"
    unit = " pp" if is_share else ""
    text = f"{item['arrow']} {item['delta']:+,.{digits}f}{unit}"
    word = TONE_WORDS.get(tone(key, item["delta"])) if key else None
    return f"{text}, {word}" if word else text


def fmt_number(value: float | int | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"
