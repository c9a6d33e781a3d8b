"""An instant is stored as its own text says, whatever other texts share its chunk: naive or
zoned, ``Z``, ``+hh:mm`` or ``+hhmm``, one to nine digits of a fraction. (A column-wise
parse read every value with the format of the column's first and stored the others null.)"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics import warehouse
from lessons_analytics.ingestion import ingest
from lessons_analytics.schema import Columns, instant_us
from tests.test_load_hostile import SESSION, claude_call

SHAPES = [
    "2026-01-05T09:00:00",
    "2026-01-05T09:00:00Z",
    "2026-01-05T09:00:00+02:00",
    "2026-01-05T09:00:00-0130",
    "2026-01-05T09:00:00.1",
    "2026-01-05T09:00:00.12Z",
    "2026-01-05T09:00:00.123+05:45",
    "2026-01-05T09:00:00.1234-1000",
    "2026-01-05T09:00:00.12345",
    "2026-01-05T09:00:00.123456Z",
    "2026-01-05T09:00:00.1234567+01:00",
    "2026-01-05T09:00:00.12345678",
    "2026-01-05T09:00:00.999999999-0000",
    "1969-12-31T23:59:59.5Z",
    "2026-01-05T23:30:00-01:00",  # the next day in UTC
]
ORDERS = {
    "as listed": SHAPES,
    "zoned first": sorted(SHAPES, key=lambda t: not t.endswith("Z")),
    "reversed": SHAPES[::-1],
}
_TEXT = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|([+-])(\d\d):?(\d\d))?"
)


def expected(text: str) -> datetime:
    """The instant, read by hand: no zone is UTC, a fraction's digits past the sixth are
    dropped, the offset is taken off."""
    found = _TEXT.fullmatch(text)
    assert found
    year, month, day, hour, minute, second = map(int, found.groups()[:6])
    micros = int((found.group(7) or "").ljust(6, "0")[:6])
    moment = datetime(year, month, day, hour, minute, second, micros, tzinfo=UTC)
    if found.group(9):
        offset = timedelta(hours=int(found.group(10)), minutes=int(found.group(11)))
        moment -= offset if found.group(9) == "+" else -offset
    return moment


def test_the_hand_reading_is_the_schemas() -> None:
    for text in SHAPES:
        moment = expected(text)
        assert instant_us(text) == (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(
            microseconds=1
        )


def _stored(frame: Any) -> list[datetime]:
    con = duckdb.connect()
    con.execute("set TimeZone = 'UTC'")
    con.execute("create table raw_mentions (line_no bigint, ts timestamptz)")
    warehouse.append(con, "raw_mentions", frame.select("line_no", "ts"))
    return [ts for (ts,) in con.execute("select ts from raw_mentions order by line_no").fetchall()]


@pytest.mark.parametrize("order", sorted(ORDERS))
@pytest.mark.parametrize("checked", [True, False])
def test_every_shape_in_one_frame_is_stored_as_its_own_text_says(order: str, checked: bool) -> None:
    texts = ORDERS[order]
    columns: Columns[Any] = Columns("raw_mentions")
    columns.checked = checked
    for n, text in enumerate([*texts, None, texts[0]]):
        columns.add({"line_no": n, "ts": text})
    stored = _stored(columns.frame())
    assert stored == [*map(expected, texts), None, expected(texts[0])]


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_an_ingested_file_of_mixed_shapes_keeps_each_lines_instant(
    order: str, tmp_path: Path
) -> None:
    texts = ORDERS[order]
    root = tmp_path / "projects" / "-home-dev-shop"
    root.mkdir(parents=True)
    lines = [json.dumps(claude_call(n, timestamp=text)) for n, text in enumerate(texts, 1)]
    (root / f"{SESSION}.jsonl").write_text("\n".join(lines) + "\n")
    db = tmp_path / "w.duckdb"
    ingest(db, [tmp_path / "projects"])
    con = duckdb.connect(str(db), read_only=True)
    for table in ("raw_events", "raw_tool_calls"):
        rows = con.execute(f"select line_no, ts from {table} order by line_no").fetchall()
        assert [ts for _n, ts in rows] == list(map(expected, texts)), table
