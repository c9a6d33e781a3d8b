"""int_events_deduplicated: a line replayed by a resume counts once, in the original."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_events_deduplicated"


def line(
    file_id: int,
    line_no: int,
    session: str | None,
    uuid: str | None,
    ts: str,
    path: str,
    text: str | None = None,
) -> dict[str, object]:
    return {
        "file_id": file_id,
        "line_no": line_no,
        "session_id": session,
        "uuid": uuid,
        "ts": f"2026-11-02 {ts}+00",
        "file_path": path,
        "text": text,
        "agent_key": "main",
    }


CASES = [
    Case(
        "a resume's replayed lines stay with the original session",
        given={
            "stg_events": [
                line(1, 0, None, None, "09:59:00", "/p/a.jsonl"),  # a title line: no session
                line(1, 1, "A", "u1", "10:00:00", "/p/a.jsonl"),
                line(1, 2, "A", "u2", "10:05:00", "/p/a.jsonl", "y" * 250),
                line(1, 3, "A", None, "10:05:00", "/p/a.jsonl"),  # no uuid: always kept
                # B resumes A: replays u1 and u2 with their old times, then goes on. Both
                # start at 10:00; A ends first (10:05 < 10:30), so A keeps u1 and u2
                line(2, 1, "B", "u1", "10:00:00", "/p/b.jsonl"),
                line(2, 2, "B", "u2", "10:05:00", "/p/b.jsonl"),
                line(2, 3, "B", None, "10:05:00", "/p/b.jsonl"),
                line(2, 4, "B", "u3", "10:30:00", "/p/b.jsonl", "x" * 250),
            ],
        },
        expected=[
            {"file_id": 1, "line_no": 1, "session_id": "A", "text_head": None},
            # a kept copy's text is cut as a single line's is
            {"file_id": 1, "line_no": 2, "session_id": "A", "text_head": "y" * 200},
            {"file_id": 1, "line_no": 3, "session_id": "A", "text_head": None},
            {"file_id": 2, "line_no": 3, "session_id": "B", "text_head": None},
            {"file_id": 2, "line_no": 4, "session_id": "B", "text_head": "x" * 200},
        ],
    ),
    Case(
        "the session that started first wins, then the one that ended first, then the path",
        given={
            "stg_events": [
                # E starts at 09:00, F at 09:30 (F ends first, but starts later): E keeps u5
                line(1, 1, "E", "u5", "09:00:00", "/p/e.jsonl"),
                line(1, 2, "E", "u6", "11:00:00", "/p/e.jsonl"),
                line(2, 1, "F", "u5", "09:30:00", "/p/f.jsonl"),
                line(2, 2, "F", "u7", "09:40:00", "/p/f.jsonl"),
                # C and D start and end together: the first path (/p/a... < /p/z...) wins,
                # though C's file id is smaller
                line(3, 1, "C", "u9", "12:00:00", "/p/z.jsonl"),
                line(4, 1, "D", "u9", "12:00:00", "/p/a2.jsonl"),
            ],
        },
        expected=[
            {"file_id": 1, "line_no": 1, "session_id": "E"},
            {"file_id": 1, "line_no": 2, "session_id": "E"},
            {"file_id": 2, "line_no": 2, "session_id": "F"},
            {"file_id": 4, "line_no": 1, "session_id": "D"},
        ],
    ),
    Case(
        "a line of no session is dropped, a single one and a copied one alike",
        given={
            "stg_events": [
                line(1, 1, "G", "u10", "08:00:00", "/p/g.jsonl"),
                line(1, 2, None, "u11", "08:01:00", "/p/g.jsonl"),  # bookkeeping, once
                # bookkeeping copied into two files: ranked (a duplicated uuid), still dropped
                line(1, 3, None, "u12", "08:02:00", "/p/g.jsonl"),
                line(2, 1, None, "u12", "08:02:00", "/p/h.jsonl"),
            ],
        },
        expected=[{"file_id": 1, "line_no": 1, "session_id": "G"}],
    ),
]  # fmt: skip
MUTANTS = [
    ("session_starts.session_started_at nulls last", "session_starts.session_started_at desc"),
    ("session_starts.session_ended_at nulls last", "session_starts.session_ended_at desc"),
    ("events.file_path,\n", "events.file_path desc,\n"),
    ("where copy_rank = 1 and session_id is not null", "where copy_rank = 1"),
    ("duplicated.uuid\n    where events.session_id is not null", "duplicated.uuid"),
    ("having count(*) > 1", "having count(*) > 2"),
    ("where copy_rank = 1 and", "where copy_rank >= 1 and"),
    (
        "left(events.text, 200) as text_head,\n    from stg_events as events\n    anti",
        "left(events.text, 250) as text_head,\n    from stg_events as events\n    anti",
    ),
    (
        "left(events.text, 200) as text_head,\n        row_number",
        "left(events.text, 250) as text_head,\n        row_number",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
