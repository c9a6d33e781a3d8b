"""An instant is stored as its own text says, whatever other texts share its chunk: naive or
zoned, ``Z``, ``+hh:mm`` or ``+hhmm``, one to nine digits of a fraction. (A column-wise
parse read every value with the format of the column's first and stored the others null.)"""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics import warehouse
from lessons_analytics.ingestion import ingest
from lessons_analytics.schema import BadValue, Columns, instant_us
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


def _near_misses(seed: int, count: int) -> list[str]:
    """Texts of the shape both runtimes write (``2026-01-05T09:00:00.123Z``) and its near
    misses: fields out of range, days that are not in their month, year 0 and years before
    1000, other digits, a fraction of another length, another zone, a leap second."""
    rng = random.Random(seed)
    digits = "0123456789"
    texts = []
    for _ in range(count):
        year = rng.choice(["2026", "2024", "2100", "2000", "1900", "0000", "0999", "1000",
                           "9999", "1970", "1969", "٢٠٢٦"])  # fmt: skip
        month = rng.choice(["01", "02", "04", "06", "09", "11", "12", "00", "13", "1"])
        day = rng.choice(["01", "28", "29", "30", "31", "00", "32", "5", "١٥"])
        hour = rng.choice(["00", "09", "23", "24", "9"])
        minute = rng.choice(["00", "59", "60"])
        second = rng.choice(["00", "30", "59", "60", "61"])
        fraction = rng.choice(
            ["." + "".join(rng.choices(digits, k=3))] * 6 + ["", ".1", ".1234", ".123456"]
        )
        zone = rng.choice(["Z"] * 6 + ["", "+00:00", "z", " Z", "Z "])
        texts.append(f"{year}-{month}-{day}T{hour}:{minute}:{second}{fraction}{zone}")
    return texts


def test_the_column_wise_reading_is_instant_us_text_by_text() -> None:
    # a checked frame reads whatever its rows hold: each text is what instant_us makes of it,
    # a text that is no instant null (an unchecked frame refuses it: below)
    texts = _near_misses(14, 4000)
    columns: Columns[Any] = Columns("raw_mentions")
    columns.rows.extend({"line_no": n, "ts": text} for n, text in enumerate(texts))
    frame = columns.frame()
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    got = [None if ts is None else (ts - epoch) // timedelta(microseconds=1)
           for ts in frame.get_column("ts").to_list()]  # fmt: skip
    assert got == [instant_us(text) for text in texts]
    assert None in got and any(got)  # both kinds were drawn


def test_an_unchecked_frame_refuses_each_text_that_is_no_instant() -> None:
    refused = [text for text in _near_misses(15, 600) if instant_us(text) is None]
    assert refused
    for text in refused:
        columns: Columns[Any] = Columns("raw_mentions")
        columns.checked = False
        columns.add({"line_no": 1, "ts": "2026-01-05T09:00:00.123Z"})
        columns.add({"line_no": 2, "ts": text})
        with pytest.raises(BadValue):
            columns.frame()
