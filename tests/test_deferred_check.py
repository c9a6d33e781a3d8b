"""The parse's shortcuts give what the long way gives: rows checked all at once
(``Batch(checked=False)``, as ``load._parse_chunk`` parses) get the verdict ``check_row``
gives row by row, a chunk parsed that way loads the rows and errors of a parse checked line
by line, hostile lines included, and lesson ids are found as ``LESSON_ID_IN_TEXT`` finds
them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_analytics.lessonbase.shapes import LESSON_ID_IN_TEXT
from lessons_analytics.load import _parse_chunk, discover, load_files
from lessons_analytics.schema import RAW_TABLES, BadValue, Batch, Columns, UnknownColumn, check_row
from lessons_analytics.transcripts.tool_results import lesson_ids
from tests.test_load_hostile import SESSION, claude_call

VALUES: list[Any] = [
    None, 0, -1, 7, (1 << 53) - 1, 1 << 53, (1 << 63) - 1, 1 << 63, -(1 << 63),
    -(1 << 63) - 1, 1 << 200, True, False, 1.5, 2.0, float("nan"), float("inf"), "", "x",
    "12", "2026-01-05T09:00:00Z", "2026-01-05T09:00:00.5+01:00", "2026-13-05T09:00:00Z",
    "2026-01-05", {"a": 1}, [1], b"x",
]  # fmt: skip
TABLES = ["raw_events", "raw_tool_results", "raw_file_reads"]


@st.composite
def rows(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]]]:
    table = draw(st.sampled_from(TABLES))
    names = [*RAW_TABLES[table], "no_such_column"]
    shapes = draw(st.lists(st.lists(st.sampled_from(names), unique=True), min_size=1, max_size=3))
    # mostly fitting values, as parsers write: a value that fits its column, or any value
    found = []
    for _ in range(draw(st.integers(1, 12))):
        keys = draw(st.sampled_from(shapes))
        row = {}
        for key in keys:
            fitting = [v for v in VALUES if _fits(table, key, v)]
            pool = fitting if fitting and draw(st.integers(0, 9)) else VALUES
            row[key] = draw(st.sampled_from(pool))
        found.append(row)
    return table, found


def _fits(table: str, key: str, value: Any) -> bool:
    try:
        check_row(table, {key: value})
    except (BadValue, UnknownColumn):
        return False
    return True


@settings(max_examples=600, deadline=None)
@given(rows())
def test_checking_all_rows_at_once_gives_the_verdict_of_each_row(
    case: tuple[str, list[dict[str, Any]]],
) -> None:
    table, found = case
    checked: Columns[Any] = Columns(table)
    fit = True
    for row in found:
        try:
            checked.add(row)
        except (BadValue, UnknownColumn):
            fit = False
    later: Columns[Any] = Columns(table)
    later.checked = False
    for row in found:
        later.add(row)
    try:
        frame = later.frame()
    except (BadValue, UnknownColumn):
        assert not fit
        return
    assert fit
    assert frame.equals(checked.frame(), null_equal=True)


def _write(path: Path, lines: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def _result(n: int, **extra: Any) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "     1\tx\n"}
    return {
        "type": "user",
        "sessionId": SESSION,
        "uuid": f"e0e0e0e0-0000-4000-8000-{n:012x}",
        "timestamp": f"2026-01-06T08:01:{n:02d}.000Z",
        "message": {"role": "user", "content": [block]},
        **extra,
    }


def test_a_chunk_checked_at_once_loads_what_a_checked_parse_loads(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "p"
    _write(
        project / "a.jsonl",
        [
            claude_call(1),
            claude_call(2, timestamp=5),  # a wrong type: the line alone is rejected
            _result(1),
            _result(2),  # its call was rejected: a result without a pending read
            claude_call(3, message={"usage": [], "content": [{"type": "tool_use"}]}),
            _result(3, toolUseResult={"file": {"startLine": "7"}}),
        ],
    )
    _write(project / "b.jsonl", [claude_call(4), _result(4, uuid=["not", "an", "id"])])
    _write(project / "c.jsonl", [claude_call(5, cwd={"a": 1}), _result(5), claude_call(6)])
    _write(
        project / "d.jsonl", [claude_call(7, message={"usage": {"input_tokens": (1 << 64) - 1}})]
    )
    (project / "e.jsonl").write_bytes(b'{"type": "user", "timestamp": 1e400}\n{"a": \xff}\n')
    sources = discover([tmp_path])
    loaded_at = "2026-01-06T09:00:00Z"
    batch = Batch()
    outcome = load_files(sources, {}, batch, loaded_at)
    chunk = _parse_chunk((sources, {}, loaded_at))
    expected = {name: cols.frame() for name, cols in batch.tables.items() if len(cols)}
    assert sorted(chunk.frames) == sorted(expected)
    for name, frame in expected.items():
        assert isinstance(chunk.frames[name], pl.DataFrame)
        assert chunk.frames[name].equals(frame, null_equal=True), name
    assert chunk.outcome.states == outcome.states
    reasons = [row["reason"] for row in batch.load_errors.rows]
    assert len(reasons) == 6 and any(".ts: the int 5 " in r for r in reasons)


def test_a_chunk_whose_lines_all_fit_is_parsed_once(tmp_path: Path, monkeypatch: Any) -> None:
    _write(tmp_path / "projects" / "p" / "a.jsonl", [claude_call(1), _result(1)])
    made: list[bool] = []
    real = Batch.__init__

    def counting(self: Batch, checked: bool = True) -> None:
        made.append(checked)
        real(self, checked)

    monkeypatch.setattr(Batch, "__init__", counting)
    chunk = _parse_chunk((discover([tmp_path]), {}, "2026-01-06T09:00:00Z"))
    assert made == [False] and chunk.outcome.lines_loaded == 2


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        st.sampled_from(["L-", "L-1", "L-42", "XL-", "_", "é", "٣", " ", "\n", "-", "7", "a", "L"]),
        max_size=14,
    ).map("".join)
)
def test_lesson_ids_found_from_their_literal_are_the_regex_s(text: str) -> None:
    assert lesson_ids(text) == list(dict.fromkeys(LESSON_ID_IN_TEXT.findall(text)))
