"""int_agent_runs_identified: one row per run, warm-ups flagged by the four rules."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "int_agent_runs_identified"


def ev(
    session: str,
    agent: str,
    line_no: int,
    hhmm: str,
    role: str,
    text: str | None = None,
    cwd: str | None = None,
    tool_uses: int = 0,
) -> dict[str, object]:
    return {
        "session_id": session,
        "agent_key": agent,
        "line_no": line_no,
        "agent_id": None if agent == "main" else agent,
        "runtime": "claude",
        "ts": f"2026-11-02 {hhmm}:00+00",
        "role": role,
        "text_head": text,
        "cwd": cwd,
        "file_path": f"/p/{session if agent == 'main' else agent}.jsonl",
        "tool_uses": tool_uses,
        "is_sidechain": agent != "main",
    }


def result(session: str, agent: str, text: str) -> dict[str, object]:
    return {"session_id": session, "agent_id": agent, "text_head": text, "result_chars": len(text)}


GIVEN = {
    "int_events_deduplicated": [
        ev("S", "main", 1, "10:00", "user", "fix the bug", cwd="/w"),
        ev("S", "main", 2, "10:01", "assistant", cwd="/w2", tool_uses=1),
        ev("S", "w1", 1, "10:01", "user", "Warmup"),  # rule 1: the prompt is "Warmup"
        ev("S", "w2", 1, "10:02", "user", "do x"),  # rule 2: every result is "Warmup"
        ev("S", "w3", 1, "10:02", "user", "go"),  # one real result among Warmup ones: kept
        ev("S", "k1", 1, "10:03", "assistant"),  # text only, but spawned (sidecar): kept
        ev("S", "k2", 1, "10:04", "assistant"),  # rule 4: text only, nothing spawned it
        ev("T", "main", 1, "11:00", "user", "hello"),
        ev("T", "w1", 2, "11:01", "user", "other"),  # rule 3: w1's file is a warm-up file
        ev("T", "k3", 1, "11:05", "assistant"),  # spawned (a Task result names it): kept
    ],
    "int_tool_results_deduplicated": [
        result("S", "w2", "Warmup"),
        result("S", "w3", "Warmup"),
        result("S", "w3", "ok done"),
    ],
    "stg_subagent_meta": [{"session_id": "S", "agent_id": "k1", "tool_use_id": "tuK"}],
    "stg_tool_results": [{"session_id": "T", "spawned_agent_id": "k3"}],
}


def run(
    session: str,
    agent: str,
    warmup: bool,
    events: int,
    first: str | None,
    cwd: str | None,
    started: str,
) -> dict[str, object]:
    return {
        "session_id": session,
        "agent_key": agent,
        "agent_run_id": f"{session}/{agent}",
        "is_main": agent == "main",
        "is_warmup": warmup,
        "events": events,
        "first_user_text": first,
        "cwd": cwd,
        "started_at": f"2026-11-02 {started}:00+00",
    }


CASES = [
    Case(
        "the four warm-up rules, and what a kept run carries",
        given=GIVEN,
        expected=[
            run("S", "main", False, 2, "fix the bug", "/w", "10:00"),
            run("S", "w1", True, 1, "Warmup", None, "10:01"),
            run("S", "w2", True, 1, "do x", None, "10:02"),
            run("S", "w3", False, 1, "go", None, "10:02"),
            run("S", "k1", False, 1, None, None, "10:03"),
            run("S", "k2", True, 1, None, None, "10:04"),
            run("T", "main", False, 1, "hello", None, "11:00"),
            run("T", "w1", True, 1, "other", None, "11:01"),
            run("T", "k3", False, 1, None, None, "11:05"),
        ],
    ),
]  # fmt: skip
MUTANTS = [
    ("coalesce(trim(first_user.first_user_text) = 'Warmup', false)", "false"),
    ("bool_and(is_warmup_text)", "bool_or(is_warmup_text)"),
    ("and spawns.agent_key is null", "and true"),
    ("direct.is_warmup or spread.agent_key is not null as", "direct.is_warmup as"),
    ("arg_min(cwd, (ts, file_path, line_no))", "arg_max(cwd, (ts, file_path, line_no))"),
    (
        "from stg_tool_results\n    where spawned_agent_id is not null",
        "from stg_tool_results\n    where false",
    ),
    ("where tool_use_id is not null", "where false"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
