"""int_index_reads_versioned: each index read with the INDEX.md version of its time."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_index_reads_versioned"


def read(tid: str, base: str, at: str, **cols: object) -> dict[str, object]:
    row: dict[str, object] = {
        "tool_use_id": tid,
        "read_idx": 0,
        "base_path": base,
        "target": "index",
        "called_at": f"2026-11-02 {at}+00",
        "method": "cat",
        "is_delivered": True,
    }
    row.update(cols)
    return row


CASES = [
    Case(
        "version at or before the read, else the earliest; the range clipped to it",
        given={
            "int_file_reads_delivered": [
                # between the two commits: v1 (20 lines); the command's 1..50 is clipped
                read("r1", "/b", "11:00:00", delivered_from=1, delivered_to=50),
                # before every commit: the earliest version; no range means the whole file
                read("r2", "/b", "09:00:00"),
                # at the second commit's very instant: v2; tail -n 5 of 30 lines is 26..30
                read("r3", "/b", "12:00:00", method="tail", tail_n=5),
                # a base outside git has only its worktree version; a failed read shows 1..0
                read("r4", "/c", "11:00:00", is_delivered=False),
                read("r5", "/b", "11:00:00", target="lesson"),  # not an index read
            ],
            "stg_index_versions": [
                {"base_path": "/b", "version_id": "v1", "committed_at": "2026-11-02 10:00:00+00",
                 "n_lines": 20, "active_heading_line": 3},
                {"base_path": "/b", "version_id": "v2", "committed_at": "2026-11-02 12:00:00+00",
                 "n_lines": 30, "active_heading_line": 5},
                {"base_path": "/c", "version_id": "worktree", "committed_at": None, "n_lines": 5,
                 "active_heading_line": 1},
            ],
        },
        expected=[
            {"tool_use_id": "r1", "version_id": "v1", "n_lines": 20, "active_heading_line": 3,
             "line_from": 1, "line_to": 20},
            {"tool_use_id": "r2", "version_id": "v1", "n_lines": 20, "active_heading_line": 3,
             "line_from": 1, "line_to": 20},
            {"tool_use_id": "r3", "version_id": "v2", "n_lines": 30, "active_heading_line": 5,
             "line_from": 26, "line_to": 30},
            {"tool_use_id": "r4", "version_id": "worktree", "n_lines": 5,
             "active_heading_line": 1, "line_from": 1, "line_to": 0},
        ],
    ),
]  # fmt: skip
MUTANTS = [
    ("v.committed_at <= reads.called_at", "v.committed_at < reads.called_at"),
    ("order by v.committed_at desc, v.version_id desc limit 1", "order by v.committed_at limit 1"),
    ("then greatest(versions.n_lines - tail_n + 1, 1)", "then 1"),
    ("least(coalesce(delivered_to, versions.n_lines), versions.n_lines)", "delivered_to"),
    ("when not is_delivered then 0", "when not is_delivered then 1"),
    ("where target = 'index'", "where true"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
