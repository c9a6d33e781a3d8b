"""Warm-up agents are dropped whole, including the parts that go on under later sessions.

One project, Claude Code 2.0.x flat agent files, worked out by hand:

    session A main   prompt, Task call; the Task result names agent r1        1 call
    agent-r1         session A, no prompt line, one text reply; spawned         0 calls
    agent-w1         session A: "Warmup" + reply; then session B: two Bash
                     calls answered "Warmup"                                     (warm-up)
    agent-w3         session A, a one-line reply nothing asked for               (warm-up)
    session B main   prompt, one Bash call                                       1 call
    agent-w2         session B, no prompt, one Bash call answered "Warmup"       (warm-up)
    agent-r2         session B, prompt, two Bash calls: one answered "Warmup",
                     one with real output (not all Warmup: kept)                2 calls

Kept runs: A/main, A/r1, B/main, B/r2; calls: 4. Before the rules of
int_agent_runs_identified.sql, B/w1, B/w2 and A/w3 were kept with 3 Bash calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lessons_analytics.ingestion import ingest
from tests.support.dbrows import rows as _rows
from tests.support.transcripts import ClaudeSession, reset_ids

A = "a1000000-0000-4000-8000-0000000000a1"
B = "b1000000-0000-4000-8000-0000000000b1"


def _agent(folder: Path, agent_id: str, session: str) -> ClaudeSession:
    return ClaudeSession(folder, session, cwd="/home/dev/shop", version="2.0.37", agent_id=agent_id)


def _reply(s: ClaudeSession, ts: str, text: str) -> None:
    s._line("assistant", ts, message={"id": "msg_" + ts, "role": "assistant",
            "model": "claude-haiku-4-5", "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 3, "output_tokens": 1}})  # fmt: skip


def _flat(folder: Path, agent_id: str, lines: list[dict[str, Any]]) -> Path:
    """2.0.x layout: ``agent-<id>.jsonl`` beside the session files, each line its session."""
    path = folder / f"agent-{agent_id}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def build(projects: Path, *, w1_later_part: bool = True) -> Path:
    reset_ids()
    folder = projects / "-home-dev-shop"
    folder.mkdir(parents=True, exist_ok=True)

    main_a = ClaudeSession(folder, A, cwd="/home/dev/shop", version="2.0.37")
    main_a.prompt("2026-02-02T10:00:00Z", "look into the flaky test")
    task = main_a.tool("2026-02-02T10:00:05Z", "Task", {"prompt": "find it", "description": "d"})
    main_a.result(task, "2026-02-02T10:01:00Z", "found it", tur={"agentId": "r1"})
    main_a.write()

    r1 = _agent(folder, "r1", A)
    _reply(r1, "2026-02-02T10:00:30Z", "The test sleeps.")
    _flat(folder, "r1", r1.lines)

    w1 = _agent(folder, "w1", A)
    w1.prompt("2026-02-02T09:59:58Z", "Warmup")
    _reply(w1, "2026-02-02T09:59:59Z", "Ready.")
    later = _agent(folder, "w1", B)
    later._last = w1._last
    for n in range(2):
        call = later.bash(f"2026-02-03T11:00:0{2 * n + 1}Z", f"ls {n}")
        later.result(call, f"2026-02-03T11:00:0{2 * n + 2}Z", "Warmup")
    _flat(folder, "w1", w1.lines + (later.lines if w1_later_part else []))

    w3 = _agent(folder, "w3", A)
    _reply(w3, "2026-02-02T09:59:57Z", "I'm ready to help.")
    _flat(folder, "w3", w3.lines)

    main_b = ClaudeSession(folder, B, cwd="/home/dev/shop", version="2.0.37")
    main_b.prompt("2026-02-03T11:00:00Z", "status?")
    call = main_b.bash("2026-02-03T11:00:10Z", "git status")
    main_b.result(call, "2026-02-03T11:00:11Z", "clean")
    main_b.write()

    w2 = _agent(folder, "w2", B)
    call = w2.bash("2026-02-03T10:59:58Z", "ls")
    w2.result(call, "2026-02-03T10:59:59Z", "Warmup")
    _flat(folder, "w2", w2.lines)

    r2 = _agent(folder, "r2", B)
    r2.prompt("2026-02-03T11:00:20Z", "check the logs")
    first = r2.bash("2026-02-03T11:00:21Z", "tail log")
    r2.result(first, "2026-02-03T11:00:22Z", "Warmup")
    second = r2.bash("2026-02-03T11:00:23Z", "tail log.1")
    r2.result(second, "2026-02-03T11:00:24Z", "error: disk full")
    _flat(folder, "r2", r2.lines)
    return projects


KEPT_RUNS = [(A[:4], "main"), (A[:4], "r1"), (B[:4], "main"), (B[:4], "r2")]
WARMUPS = [(A[:4], "w1"), (A[:4], "w3"), (B[:4], "w1"), (B[:4], "w2")]


def test_every_part_of_a_warmup_is_dropped(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    report = ingest(db, [build(tmp_path / "projects")])
    assert report.document()["load_errors"] == 0
    runs = "select left(session_id, 4), agent_key from {} order by 1, 2"
    assert _rows(db, runs.format("dim_agent_runs")) == KEPT_RUNS
    assert _rows(db, runs.format("int_agent_runs_identified where is_warmup")) == WARMUPS
    by_run = _rows(
        db, "select agent_key, tool_name, count(*) from fct_tool_calls group by all order by all"
    )
    assert by_run == [("main", "Bash", 1), ("main", "Task", 1), ("r2", "Bash", 2)]
    # the spawned text-only run keeps its link; the warm-ups' lines are in no mart
    assert _rows(db, "select spawned_by_tool_use_id is not null from dim_agent_runs"
                     " where agent_key = 'r1'") == [(True,)]  # fmt: skip
    assert _rows(db, "select count(*) from fct_events where agent_key like 'w%'") == [(0,)]


def test_a_warmup_file_that_grows_into_a_later_session_refreshes_like_a_full_build(
    tmp_path: Path,
) -> None:
    projects = build(tmp_path / "projects", w1_later_part=False)
    db = tmp_path / "w.duckdb"
    ingest(db, [projects])
    build(projects)  # agent-w1 now goes on under session B
    assert ingest(db, [projects]).build == "incremental"
    fresh = tmp_path / "fresh.duckdb"
    ingest(fresh, [projects])
    for table in ("int_agent_runs_identified", "dim_agent_runs", "fct_tool_calls", "fct_sessions"):
        query = f"select * from {table} order by all"
        assert _rows(db, query) == _rows(fresh, query), table
    assert _rows(db, "select count(*) from fct_tool_calls") == [(4,)]
