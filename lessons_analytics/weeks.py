"""ISO weeks (``2026-W48``, Monday to Sunday, UTC): parse, bounds, shift, the week a day
is in, the last week that has ended. The report and the nightly run both use these."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

__all__ = ["last_complete_week", "parse_week", "shift_week", "week_bounds", "week_of"]

_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def parse_week(text: str) -> tuple[int, int]:
    """``2026-W48`` -> (2026, 48); ValueError for anything else or a week that does not exist."""
    match = _WEEK.match(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not an ISO week (YYYY-Www)")
    year, week = int(match.group(1)), int(match.group(2))
    date.fromisocalendar(year, week, 1)  # raises ValueError for week 53 of a 52-week year
    return year, week


def week_bounds(week: str) -> tuple[datetime, datetime]:
    """The week's Monday 00:00 UTC and the next Monday 00:00 UTC (exclusive)."""
    year, number = parse_week(week)
    start = date.fromisocalendar(year, number, 1)
    begin = datetime(start.year, start.month, start.day, tzinfo=UTC)
    return begin, begin + timedelta(days=7)


def week_of(day: date) -> str:
    year, number, _ = day.isocalendar()
    return f"{year}-W{number:02d}"


def shift_week(week: str, weeks: int) -> str:
    begin, _ = week_bounds(week)
    return week_of((begin + timedelta(weeks=weeks)).date())


def last_complete_week(today: date | None = None) -> str:
    """The last ISO week (UTC) that ended before ``today``."""
    day = today or datetime.now(UTC).date()
    return week_of(day - timedelta(days=day.isoweekday()))
