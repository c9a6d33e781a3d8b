"""Codex rollouts: wrapped and bare eras, every shell-tool generation, apply_patch.

Numbers come from the fixtures under tests/data/codex (see tests/data/README.md).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics.ingestion import IngestReport, ingest
from lessons_analytics.transcripts.codex import parse_output

SESSIONS = Path(__file__).parent / "data" / "codex" / "sessions"
C1 = "019b8f00-0000-7000-8000-00000000c001"
C2 = "019b8f00-0000-7000-8000-00000000c002"
C3 = "019b8f00-0000-7000-8000-00000000c003"
BARE = "5f8a2b1c-3d4e-4f60-8a7b-9c0d1e2f3a4b"


def rollout(session_id: str) -> Path:
    (path,) = SESSIONS.rglob(f"rollout-*-{session_id}.jsonl")
    return path


def load(tmp_path: Path, *paths: Path) -> tuple[IngestReport, duckdb.DuckDBPyConnection]:
    db = tmp_path / "w.duckdb"
    report = ingest(db, list(paths))
    return report, duckdb.connect(str(db), read_only=True)


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[Any, ...]]:
    return con.execute(sql).fetchall()


def test_exec_command_output_turn_context_and_event_copies(tmp_path: Path) -> None:
    report, con = load(tmp_path, rollout(C1))
    assert (report.lines_loaded, report.totals["load_errors"]) == (12, 0)
    assert rows(
        con,
        "select tool_use_id, tool_name, command, cwd, exit_code, is_error, duration_s"
        " from fct_tool_calls order by called_at",
    ) == [
        ("call_c1a", "exec_command", "ls -la", "/home/dev/shop/api", 0, False, 0.0512),
        # no workdir: the cwd of the turn_context (not session_meta's /home/dev/shop)
        ("call_c1b", "exec_command", "ls missing", "/home/dev/shop/api", 2, True, 0.004),
    ]
    # one user and one assistant response_item; the user_message / agent_message event_msg
    # copies (and reasoning, token_count) are events, not messages
    assert rows(con, "select role from fct_messages order by ts, role desc") == [
        ("user",),
        ("assistant",),
    ]
    assert rows(
        con,
        "select subtype, count(*) from fct_events where line_type = 'event_msg'"
        " group by 1 order by 1",
    ) == [("agent_message", 1), ("token_count", 1), ("user_message", 1)]
    assert rows(con, "select session_id, runtime, cwd, started_at from fct_sessions") == [
        (C1, "codex", "/home/dev/shop", datetime(2026, 1, 5, 14, 0, 0, 100000, tzinfo=UTC))
    ]


def test_shell_shell_command_and_local_shell_call(tmp_path: Path) -> None:
    _, con = load(tmp_path, rollout(C2))
    assert rows(
        con,
        "select tool_name, command, cwd, exit_code, is_error, duration_s, result_head"
        " from fct_tool_calls order by called_at",
    ) == [
        # JSON output: metadata.duration_seconds 1.2 beats the 2 s between the lines
        ("shell", "pytest -q", "/home/dev/shop", 0, False, 1.2, "3 passed in 0.41s\n"),
        ("shell_command", "git status --short", "/home/dev/shop", 128, True, 0.1,
         "fatal: not a git repository (or any of the parent directories): .git\n"),
        # action.working_directory; bash -lc unwrapped
        ("local_shell_call", "make lint", "/home/dev/shop/api", 0, False, 0.3, "ok\n"),
    ]  # fmt: skip


def test_apply_patch_custom_tool_call(tmp_path: Path) -> None:
    _, con = load(tmp_path, rollout(C3))
    ((name, command, exit_code, duration, head, input_json),) = rows(
        con,
        "select tool_name, command, exit_code, duration_s, result_head, input_json"
        " from fct_tool_calls",
    )
    assert (name, command, exit_code, duration) == ("apply_patch", None, 0, 0.0)
    assert head == "Success. Updated the following files:\nM api/app.py\n"
    assert "*** Begin Patch" in input_json


def test_bare_era_rollout(tmp_path: Path) -> None:
    report, con = load(tmp_path, rollout(BARE))
    assert (report.lines_loaded, report.totals["load_errors"]) == (9, 0)
    assert rows(
        con,
        "select line_no, line_type from raw_events where line_type <> 'response_item'"
        " order by line_no",
    ) == [(1, "session_meta"), (2, "state"), (8, "state")]
    # the session id and start come from the first line; the cwd from <environment_context>
    assert rows(con, "select session_id, cwd, started_at from fct_sessions") == [
        (BARE, "/home/dev/legacy", datetime(2025, 8, 20, 14, 0, tzinfo=UTC))
    ]
    assert rows(
        con, "select tool_name, command, cwd, exit_code, duration_s from fct_tool_calls"
    ) == [("shell", "make -n test", "/home/dev/legacy", 0, 0.1)]
    # two user messages (environment context, the question) and one assistant message
    assert rows(con, "select role, count(*) from fct_messages group by 1 order by 1") == [
        ("assistant", 1),
        ("user", 2),
    ]


def test_all_rollouts_together(tmp_path: Path) -> None:
    report, _ = load(tmp_path, SESSIONS)
    # 12 + 10 + 7 + 9 lines; calls: 2 exec_command, shell x2 (c2, bare), shell_command,
    # local_shell_call, apply_patch
    assert (report.files_seen, report.lines_loaded) == (4, 38)
    assert report.totals["sessions"] == 4
    assert report.totals["by_tool"] == {
        "exec_command": 2,
        "shell": 2,
        "apply_patch": 1,
        "local_shell_call": 1,
        "shell_command": 1,
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Chunk ID: 83c252\nWall time: 0.0512 seconds\nProcess exited with code 0\n"
            "Original token count: 3\nOutput:\nabc\n",
            ("abc\n", 0, 0.0512),
        ),
        ("Exit code: 1\nWall time: 2 seconds\nOutput:\nboom\n", ("boom\n", 1, 2.0)),
        (
            "Exit code: 124\nWall time: 10.0 seconds\nOutput:\n"
            "command timed out after 10000 milliseconds\n",
            ("command timed out after 10000 milliseconds\n", 124, 10.0),
        ),
        ('{"output":"hi\\n","metadata":{"exit_code":3,"duration_seconds":0.5}}', ("hi\n", 3, 0.5)),
        ("Process running with session ID 7\nOutput:\n", ("", None, None)),
        ("plain text without a header", ("plain text without a header", None, None)),
        ('{"not": "an exec output"}', ('{"not": "an exec output"}', None, None)),
    ],
)
def test_parse_output(text: str, expected: tuple[str, int | None, float | None]) -> None:
    assert parse_output(text) == expected
