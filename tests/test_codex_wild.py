"""Codex logs as they are in the wild: resumed rollouts, legacy documents, harness failures.

Fixtures under tests/data/codex_wild (see tests/data/README.md); the expected numbers are
worked out by hand from those files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics.ingestion import IngestReport, ingest
from lessons_analytics.transcripts.codex import harness_failure

WILD = Path(__file__).parent / "data" / "codex_wild" / "sessions"
PARENT = "019c2a00-0000-7000-8000-00000000d001"
RESUMED = "019c2a00-0000-7000-8000-00000000d002"
LEGACY_A = "6b1c2d3e-0000-4000-8000-00000000e001"
LEGACY_B = "6b1c2d3e-0000-4000-8000-00000000e002"


def load(tmp_path: Path, *paths: Path) -> tuple[IngestReport, duckdb.DuckDBPyConnection]:
    db = tmp_path / "w.duckdb"
    report = ingest(db, list(paths))
    return report, duckdb.connect(str(db), read_only=True)


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[Any, ...]]:
    return con.execute(sql).fetchall()


def rollout(session_id: str) -> Path:
    (path,) = WILD.rglob(f"rollout-*{session_id}.json*")
    return path


# --- resumed rollouts --------------------------------------------------------------------


def test_resumed_rollout_keeps_its_own_calls_and_the_replay_counts_once(tmp_path: Path) -> None:
    report, con = load(tmp_path, rollout(PARENT), rollout(RESUMED))
    assert report.totals["load_errors"] == 0
    # the parent: 11 lines, 2 calls; the resumed rollout: its own session_meta + 7 new lines
    # (lines 2..11 replay the parent's lines 1..10 and are the parent's)
    assert rows(con, "select session_id, count(*) from fct_events group by 1 order by 1") == [
        (PARENT, 11),
        (RESUMED, 8),
    ]
    assert rows(
        con, "select session_id, tool_use_id from fct_tool_calls order by session_id, called_at"
    ) == [
        (PARENT, "call_d1a"),
        (PARENT, "call_d1b"),
        (RESUMED, "call_d2a"),
        (RESUMED, "call_d2b"),
    ]
    # the parent went on after the resume (its line 11 is not replayed): its own line
    assert rows(
        con,
        "select session_id, count(*) from fct_messages where role = 'user' group by 1 order by 1",
    ) == [(PARENT, 2), (RESUMED, 1)]
    assert rows(con, "select tool_use_id, path from fct_file_reads order by 1") == [
        ("call_d1b", "/home/dev/shop/api/app.py"),
        ("call_d2a", "/home/dev/shop/api/test_app.py"),
    ]


def test_resumed_rollout_without_its_parent_keeps_the_replay(tmp_path: Path) -> None:
    # the replay is then the only copy of the parent's calls: they count once, here
    _, con = load(tmp_path, rollout(RESUMED))
    assert rows(con, "select session_id, count(*) from fct_events group by 1") == [(RESUMED, 18)]
    assert rows(con, "select tool_use_id from fct_tool_calls order by called_at") == [
        ("call_d1a",), ("call_d1b",), ("call_d2a",), ("call_d2b",)
    ]  # fmt: skip


def test_loading_the_parent_later_moves_the_replay_back(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    ingest(db, [rollout(RESUMED)])
    ingest(db, [rollout(RESUMED), rollout(PARENT)])
    con = duckdb.connect(str(db), read_only=True)
    assert rows(con, "select session_id, count(*) from fct_tool_calls group by 1 order by 1") == [
        (PARENT, 2),
        (RESUMED, 2),
    ]


# --- legacy one-document rollouts --------------------------------------------------------


def test_legacy_documents_load_and_a_replayed_history_counts_once(tmp_path: Path) -> None:
    report, con = load(tmp_path, WILD)
    assert report.totals["load_errors"] == 0
    assert rows(
        con,
        "select session_id, count(*) from fct_events where session_id like '6b1c%'"
        " group by 1 order by 1",
    ) == [(LEGACY_A, 5), (LEGACY_B, 5)]  # B: its session line + 4 new items of 8
    assert rows(
        con,
        "select session_id, tool_use_id, tool_name, command, is_error, exit_code"
        " from fct_tool_calls where session_id like '6b1c%' order by 1, 2",
    ) == [
        (LEGACY_A, "call_e1a", "shell", "head -n 5 README.md", False, 0),
        (LEGACY_B, "call_e2a", "container.exec", "pytest -q", True, 1),
        (LEGACY_B, "call_e2b", "shell", "cat setup.cfg", False, 0),
    ]
    # items carry no time: each gets its session's timestamp
    assert rows(
        con,
        "select session_id, min(called_at) = max(called_at), strftime(min(called_at), '%H:%M')"
        " from fct_tool_calls where session_id like '6b1c%' group by 1 order by 1",
    ) == [(LEGACY_A, True, "11:00"), (LEGACY_B, True, "11:05")]
    assert rows(
        con,
        "select tool_use_id, path, delivered_from, delivered_to from fct_file_reads"
        " where session_id like '6b1c%' order by 1",
    ) == [
        ("call_e1a", "/home/dev/shop/README.md", 1, 1),
        ("call_e2b", "/home/dev/shop/setup.cfg", 1, 1),
    ]


def test_a_broken_legacy_document_is_one_counted_error(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    bad = tmp_path / "s" / "rollout-2025-08-23-0000.json"
    bad.write_text('{"session": {"id": "x"}, "items": [')
    wrong = tmp_path / "s" / "rollout-2025-08-23-0001.json"
    wrong.write_text(json.dumps({"items": []}))
    report, _con = load(tmp_path, tmp_path / "s")
    assert report.totals["load_errors"] == 2
    assert sorted((e["line"], e["reason"][:12]) for e in report.document()["errors"]) == [
        (1, "invalid JSON"),
        (1, "unexpected s"),
    ]


# --- harness failures --------------------------------------------------------------------

# one row per shape seen in real Codex outputs (texts written here, not copied)
HARNESS_SHAPES = [
    ("failed in sandbox MacosSeatbelt with execution error: Denied { output: "
     "ExecToolCallOutput { exit_code: 128, stdout: ...", "error", 128),
    ("failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, "
     "exit code: 1, stdout: , stderr: x", "error", 1),
    ("failed in sandbox: sandbox error: command timed out", "error", None),
    ("execution error: No such file or directory (os error 2)", "error", None),
    ('execution error: Io(Os { code: 2, kind: NotFound, message: "x" })', "error", None),
    ("apply_patch verification failed: Failed to find expected lines in /a/b.py:\nx", "error",
     None),
    ('error: Failed to find expected lines ["x = 1"]', "error", None),
    ("error: invalid hunk at line 3, 'x' is not a valid hunk header", "error", None),
    ("error: invalid patch: The first line of the patch must be '*** Begin Patch'", "error",
     None),
    ("failed to parse function arguments: missing field `command` at line 1 column 9", "error",
     None),
    ("unsupported call: ripgrep", "error", None),
    ("exec_command failed: SandboxDenied { message: \"x\" }", "error", None),
    ("write_stdin failed: stdin is closed for this session", "error", None),
    ("exec command rejected by user", "rejected", None),
    ("patch rejected by user", "rejected", None),
    ("exec command rejected: dangerous command detected", "rejected", None),
    ("aborted", "interrupted", None),
    ("aborted by user", "interrupted", None),
]  # fmt: skip
NOT_FAILURES = [
    "Plan updated",
    "",
    "Success. Updated the following files:\nM a.py\n",
    "the build was aborted earlier\n",  # not at the start
    "errors: 0\n",
]


@pytest.mark.parametrize(("output", "kind", "exit_code"), HARNESS_SHAPES)
def test_harness_failure_shapes(
    tmp_path: Path, output: str, kind: str, exit_code: int | None
) -> None:
    assert harness_failure(output) == kind
    _, con = load(tmp_path, _one_call_rollout(tmp_path, output))
    assert rows(
        con, "select is_error, is_rejected, is_interrupt, exit_code from fct_tool_calls"
    ) == [(True, kind == "rejected", kind == "interrupted", exit_code)]


@pytest.mark.parametrize("output", NOT_FAILURES)
def test_outputs_that_are_not_harness_failures(tmp_path: Path, output: str) -> None:
    assert harness_failure(output) is None
    _, con = load(tmp_path, _one_call_rollout(tmp_path, output))
    assert rows(con, "select is_error, is_rejected, is_interrupt from fct_tool_calls") == [
        (False, False, False)
    ]


def test_an_exit_code_wins_over_the_text(tmp_path: Path) -> None:
    # a process that ran and printed "error: ..." is judged by its exit code
    text = json.dumps({"output": "error: x\n", "metadata": {"exit_code": 0}})
    _, con = load(tmp_path, _one_call_rollout(tmp_path, text))
    assert rows(con, "select is_error, exit_code from fct_tool_calls") == [(False, 0)]


def _one_call_rollout(tmp_path: Path, output: str) -> Path:
    sid = "019c2a00-0000-7000-8000-00000000f001"
    lines = [
        {"timestamp": "2026-02-03T09:00:00.000Z", "type": "session_meta",
         "payload": {"id": sid, "timestamp": "2026-02-03T09:00:00.000Z", "cwd": "/w",
                     "cli_version": "0.50.0", "source": "cli"}},
        {"timestamp": "2026-02-03T09:00:01.000Z", "type": "response_item",
         "payload": {"type": "custom_tool_call", "name": "apply_patch", "call_id": "call_f1",
                     "input": "*** Begin Patch\n*** End Patch\n"}},
        {"timestamp": "2026-02-03T09:00:02.000Z", "type": "response_item",
         "payload": {"type": "custom_tool_call_output", "call_id": "call_f1", "output": output}},
    ]  # fmt: skip
    path = tmp_path / "sessions" / f"rollout-2026-02-03T04-00-00-{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


# --- cwd ---------------------------------------------------------------------------------


def _rollout_lines(sid: str, cwd_lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"timestamp": "2026-02-03T09:00:00.000Z", "type": "session_meta",
         "payload": {"id": sid, "timestamp": "2026-02-03T09:00:00.000Z", "cwd": "/w/app",
                     "cli_version": "0.50.0", "source": "cli"}},
        *cwd_lines,
    ]  # fmt: skip


def _call(ts: str, cid: str, command: str, workdir: str | None) -> list[dict[str, Any]]:
    args: dict[str, Any] = {"command": ["bash", "-lc", command]}
    if workdir is not None:
        args["workdir"] = workdir
    output = json.dumps({"output": "x\n", "metadata": {"exit_code": 0}})
    return [
        {"timestamp": ts, "type": "response_item",
         "payload": {"type": "function_call", "name": "shell", "call_id": cid,
                     "arguments": json.dumps(args)}},
        {"timestamp": ts, "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": cid, "output": output}},
    ]  # fmt: skip


def _user(ts: str, *blocks: str) -> dict[str, Any]:
    content = [{"type": "input_text", "text": b} for b in blocks]
    return {"timestamp": ts, "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": content}}  # fmt: skip


def test_a_pasted_environment_context_does_not_move_the_session(tmp_path: Path) -> None:
    sid = "019c2a00-0000-7000-8000-00000000f002"
    env = "<environment_context>\n  <cwd>{}</cwd>\n</environment_context>"
    lines = _rollout_lines(sid, [
        # the harness's own block (2026 builds put it after the AGENTS.md block): it counts
        _user("2026-02-03T09:00:01.000Z", "# AGENTS.md instructions for /w", env.format("/w/api")),
        *_call("2026-02-03T09:00:02.000Z", "call_g1", "cat a.txt", None),
        # a user pasting another session's context inside a prompt: it does not
        _user("2026-02-03T09:00:03.000Z", "why does this say\n" + env.format("/elsewhere")),
        *_call("2026-02-03T09:00:04.000Z", "call_g2", "cat b.txt", None),
        # a relative workdir is relative to the session's cwd
        *_call("2026-02-03T09:00:05.000Z", "call_g3", "cat c.txt", "sub"),
    ])  # fmt: skip
    path = tmp_path / "s" / f"rollout-2026-02-03T04-00-00-{sid}.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _, con = load(tmp_path, path)
    assert rows(con, "select tool_use_id, cwd from fct_tool_calls order by 1") == [
        ("call_g1", "/w/api"),
        ("call_g2", "/w/api"),
        ("call_g3", "/w/api/sub"),
    ]
    assert rows(con, "select path from fct_file_reads order by 1") == [
        ("/w/api/a.txt",),
        ("/w/api/b.txt",),
        ("/w/api/sub/c.txt",),
    ]
