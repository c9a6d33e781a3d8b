"""Parser rows are typed and checked against the raw schema: an unknown key is an error, a
value of the wrong type rejects its line, and the row types are the schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_type_hints

import orjson
import pytest

from lessons_analytics import load
from lessons_analytics.load import discover, load_files
from lessons_analytics.schema import (
    RAW_TABLES,
    ROW_TYPES,
    BadValue,
    Batch,
    Columns,
    EventRow,
    UnknownColumn,
    check_row,
    polars_type,
)
from lessons_analytics.transcripts.claude import ClaudeFileParser


def test_every_raw_table_has_a_row_type_with_its_columns_in_order() -> None:
    assert list(ROW_TYPES) == list(RAW_TABLES)
    for table, row in ROW_TYPES.items():
        assert list(get_type_hints(row)) == list(RAW_TABLES[table])
    assert RAW_TABLES["raw_events"]["ts"] == "ts"
    assert (
        str(polars_type(RAW_TABLES["raw_events"]["ts"]))
        == "Datetime(time_unit='us', time_zone='UTC')"
    )
    assert str(polars_type(RAW_TABLES["raw_tool_results"]["duration_s"])) == "Float64"


def test_a_misspelt_key_is_an_error_even_when_its_value_is_null() -> None:
    events: Columns[EventRow] = Columns("raw_events")
    with pytest.raises(UnknownColumn, match="'sesion_id'"):
        events.add({"file_id": 1, "sesion_id": None})  # type: ignore[typeddict-unknown-key]
    assert len(events) == 0
    events.add({"file_id": 1, "session_id": None})
    assert len(events) == 1


@pytest.mark.parametrize(
    ("column", "value", "fits"),
    [
        ("input_tokens", 12, True),
        ("input_tokens", "12", False),  # not coerced
        ("input_tokens", True, False),  # a bool is not an int
        ("input_tokens", 12.0, False),
        ("input_tokens", (1 << 63) - 1, True),
        ("input_tokens", 1 << 63, False),  # beyond 64 bits
        ("input_tokens", -(1 << 63) - 1, False),
        ("is_meta", True, True),
        ("is_meta", 1, False),
        ("session_id", "s", True),
        ("session_id", 5, False),
        ("session_id", {"a": 1}, False),
        ("ts", "2026-01-05T09:00:00.123Z", True),
        ("ts", "2026-01-05T09:00:00+01:00", True),
        ("ts", "2026-13-05T09:00:00Z", False),  # month 13
        ("ts", "2026-01-05", False),
        ("ts", "", False),
        ("ts", 1767600000, False),
    ],
)
def test_values_are_checked_not_coerced(column: str, value: Any, fits: bool) -> None:
    if fits:
        check_row("raw_events", {column: value})
    else:
        with pytest.raises(BadValue, match=f"raw_events.{column}: "):
            check_row("raw_events", {column: value})


@pytest.mark.parametrize(
    ("value", "fits"), [(1.5, True), (2, True), ((1 << 53) - 1, True), (1 << 53, False)]
)
def test_an_integer_fits_a_float_column_while_it_keeps_its_value(value: Any, fits: bool) -> None:
    if fits:
        check_row("raw_tool_results", {"duration_s": value})
    else:
        with pytest.raises(BadValue):
            check_row("raw_tool_results", {"duration_s": value})


def test_the_first_bad_column_of_a_row_is_named() -> None:
    with pytest.raises(BadValue, match=r"raw_events\.ts: the int"):
        check_row("raw_events", {"ts": 5, "cwd": {"a": 1}})


def test_a_rejected_line_leaves_no_row_in_any_table() -> None:
    batch = Batch()
    mark = batch.mark()
    batch.events.add({"file_id": 1, "line_no": 1})
    batch.mentions.add({"file_id": 1, "line_no": 1, "lesson_id": "L-1"})
    batch.rollback(mark)
    assert len(batch.events) == len(batch.mentions) == 0


def test_a_parser_bug_stops_the_run_instead_of_counting_bad_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = tmp_path / "projects" / "p" / "s1.jsonl"
    session.parent.mkdir(parents=True)
    line = {"type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-01-05T09:00:00Z"}
    session.write_bytes(orjson.dumps(line) + b"\n")
    sources = discover([tmp_path])
    batch = Batch()
    load_files(sources, {}, batch, "2026-01-05T10:00:00Z")
    assert len(batch.events) == 1 and len(batch.load_errors) == 0

    envelope = ClaudeFileParser._envelope

    def misspelt(self: ClaudeFileParser, line_no: int, record: Any, kind: str) -> Any:
        env = dict(envelope(self, line_no, record, kind))
        env["sesion_id"] = env.pop("session_id")
        return env

    monkeypatch.setattr(ClaudeFileParser, "_envelope", misspelt)
    with pytest.raises(UnknownColumn, match="raw_events has no column 'sesion_id'"):
        load_files(sources, {}, Batch(), "2026-01-05T10:00:00Z")
    assert load._rejection(BadValue("x")) == "wrong type: x"


def test_a_legacy_document_is_one_line_for_the_parser_protocol(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    session = {"id": "a1", "timestamp": "2025-04-01T10:00:00Z", "instructions": ""}
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": "{}"},
    ]
    (folder / "rollout-2025-04-01-a.json").write_bytes(
        orjson.dumps({"session": session, "items": items})
    )
    (folder / "rollout-2025-04-01-b.json").write_bytes(b"[1, 2]")
    late = {**session, "id": "b2", "timestamp": 1743501600}  # a number: a wrong type
    (folder / "rollout-2025-04-01-c.json").write_bytes(
        orjson.dumps({"session": late, "items": items})
    )
    batch = Batch()
    outcome = load_files(discover([tmp_path]), {}, batch, "2026-01-05T10:00:00Z")
    lines = {state["path"][-6:]: state["consumed_lines"] for state in outcome.states}
    assert lines == {"a.json": 3, "b.json": 1, "c.json": 1}  # session + 2 items
    assert [row["line_no"] for row in batch.events.rows] == [1, 2, 3]  # c left nothing
    assert len(batch.tool_calls) == 1
    errors = sorted(
        (row["path"][-6:], row["line_no"], row["reason"]) for row in batch.load_errors.rows
    )
    assert errors == [
        ("b.json", 1, "unexpected shape: ValueError('not a {session, items} rollout document')"),
        ("c.json", 1, "wrong type: raw_events.ts: the int 1743501600 is not a valid ts"),
    ]
