"""Claude Code ingestion, one fixture per phenomenon (tests/data/README.md lists them).

Each test ingests only the files of its scenario and checks the marts against numbers worked
out by hand from the fixture lines.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics.ingestion import IngestReport, ingest

PROJ = Path(__file__).parent / "data" / "projects" / "-home-dev-shop"


def sid(prefix: str) -> str:
    return f"{prefix}000000-0000-4000-8000-0000000000{prefix}"


def fixture(prefix: str) -> Path:
    return PROJ / f"{sid(prefix)}.jsonl"


def load(tmp_path: Path, *paths: Path) -> tuple[IngestReport, duckdb.DuckDBPyConnection]:
    db = tmp_path / "w.duckdb"
    report = ingest(db, list(paths))
    return report, duckdb.connect(str(db), read_only=True)


def rows(con: duckdb.DuckDBPyConnection, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return con.execute(sql, list(params)).fetchall()


def one(con: duckdb.DuckDBPyConnection, sql: str, *params: Any) -> Any:
    return con.execute(sql, list(params)).fetchone()[0]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_tool_use_and_result_are_paired_with_both_timestamps(tmp_path: Path) -> None:
    report, con = load(tmp_path, fixture("a1"))
    assert (report.files_loaded, report.lines_loaded, report.totals["load_errors"]) == (1, 4, 0)
    got = rows(
        con,
        "select tool_name, tool_use_id, called_at, result_at, duration_s, has_result, is_error,"
        " command, result_chars, is_truncated from fct_tool_calls",
    )
    # call line at 09:00:01.000, result line at 09:00:03.500 -> 2.5 s; "3 passed in 0.41s" = 17
    assert got == [
        (
            "Bash",
            "toolu_01A1pairBash",
            at("2026-01-05 09:00:01"),
            at("2026-01-05 09:00:03.5"),
            2.5,
            True,
            False,
            "pytest -q tests",
            17,
            False,
        )
    ]
    # 4 lines, 1 session, 1 main run; active time 09:00:00 -> 09:00:05 = 5 s of gaps under 300 s
    assert one(con, "select count(*) from fct_events") == 4
    assert rows(con, "select session_id, agent_runs, active_seconds from fct_sessions") == [
        (sid("a1"), 1, 5.0)
    ]


def test_streamed_pieces_make_one_message_and_count_tool_use_blocks(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("a2"))
    # 5 lines: prompt, 3 pieces of msg_01A2stream, one user line with both results
    assert one(con, "select count(*) from raw_events") == 5
    got = rows(
        con,
        "select role, message_key, pieces, tool_uses, input_tokens, output_tokens"
        " from fct_messages order by ts",
    )
    # the pieces carry output_tokens 3, 3, 118: the largest is kept, not the sum (124)
    assert got[1] == ("assistant", "msg_01A2stream", 3, 2, 4, 118)
    assert [r[0] for r in got] == ["user", "assistant", "user"]
    assert rows(con, "select tool_name from fct_tool_calls order by called_at") == [
        ("Glob",),
        ("Grep",),
    ]
    assert one(con, "select count(*) from fct_tool_calls where has_result") == 2


def test_resumed_session_replay_is_not_counted_twice(tmp_path: Path) -> None:
    report, con = load(tmp_path, fixture("e3"), fixture("b3"))
    # e3: 3 lines; b3: the same 3 lines replayed + 3 of its own
    assert report.lines_loaded == 9
    assert one(con, "select count(*) from raw_events") == 9
    assert one(con, "select count(*) from raw_tool_calls") == 3
    # kept once each: 6 events, 2 tool calls; the replayed lines stay with the original (e3),
    # even though b3's file sorts first by path
    assert one(con, "select count(*) from fct_events") == 6
    assert rows(con, "select session_id, tool_use_id from fct_tool_calls order by called_at") == [
        (sid("e3"), "toolu_01E3make"),
        (sid("b3"), "toolu_01B3test"),
    ]
    assert rows(con, "select session_id, events from dim_agent_runs order by started_at") == [
        (sid("e3"), 3),
        (sid("b3"), 3),
    ]
    assert report.totals["sessions"] == 2
    assert report.totals["by_tool"] == {"Bash": 2}


def test_inline_sidechain_is_a_run_linked_by_prompt(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("a4"))
    got = rows(
        con,
        "select agent_key, is_main, events, spawned_by_tool_use_id from dim_agent_runs"
        " order by is_main desc",
    )
    # lines 1, 2, 5, 6 are the main run; lines 3 (root, parentUuid null) and 4 the sidechain,
    # named after its root line
    assert got == [
        ("main", True, 4, None),
        ("sidechain-a4a4a4a4-0000-4000-8000-000000000003", False, 2, "toolu_01A4Task"),
    ]
    # the Task result's totalDurationMs (3000) wins over the 3.5 s between the timestamps
    assert rows(con, "select tool_name, duration_s from fct_tool_calls") == [("Task", 3.0)]
    assert one(con, "select count(*) from fct_sessions") == 1


def test_flat_agent_file_is_linked_by_tool_use_result_agent_id(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("a5"), PROJ / "agent-5a5a5a5a.jsonl")
    assert rows(
        con,
        "select agent_key, agent_id, events, spawned_by_tool_use_id from dim_agent_runs"
        " order by is_main desc",
    ) == [("main", None, 3, None), ("5a5a5a5a", "5a5a5a5a", 4, "toolu_01A5Task")]
    # the agent's Bash call belongs to the agent run of the parent session
    assert rows(
        con, "select agent_run_id, tool_name, duration_s from fct_tool_calls order by called_at"
    ) == [
        (f"{sid('a5')}/main", "Task", 7.4),
        (f"{sid('a5')}/5a5a5a5a", "Bash", pytest.approx(0.4)),
    ]
    assert rows(con, "select session_id, agent_runs, subagent_runs from fct_sessions") == [
        (sid("a5"), 2, 1)
    ]


def test_warmup_agent_is_dropped_and_empty_file_is_normal(tmp_path: Path) -> None:
    report, con = load(tmp_path, fixture("a7"), PROJ / "agent-0badf00d.jsonl")
    # both files load (the empty one has no line), nothing is an error
    assert (report.files_seen, report.files_loaded, report.lines_loaded) == (2, 2, 2)
    assert report.totals["load_errors"] == 0
    assert one(con, "select count(*) from raw_events") == 2
    assert one(con, "select count(*) from int_agent_runs_identified where is_warmup") == 1
    for mart in ("dim_agent_runs", "fct_sessions", "fct_events", "fct_messages"):
        assert one(con, f"select count(*) from {mart}") == 0, mart


def test_folder_subagent_is_linked_by_meta_tool_use_id(tmp_path: Path) -> None:
    report, con = load(tmp_path, fixture("a6"), PROJ / sid("a6"))
    # main file, subagent file, meta.json sidecar (one "line")
    assert (report.files_seen, report.lines_loaded) == (3, 3 + 2 + 1)
    # toolUseResult is null and the text has no agentId: tail, so only the sidecar links
    assert one(con, "select spawned_agent_id from fct_tool_calls") is None
    assert rows(
        con,
        "select agent_key, agent_type, description, spawned_by_tool_use_id from dim_agent_runs"
        " where not is_main",
    ) == [("a6b7c8d9e0f1a2b3c", "Explore", "List releases", "toolu_01A6Agent")]
    assert rows(con, "select file_kind from fct_ingest_state order by file_kind") == [
        ("main",),
        ("meta",),
        ("subagent",),
    ]


def test_read_results_in_both_line_number_styles(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("a8"))
    got = rows(
        con,
        "select tool_use_id, path, method, range_start, range_end, is_prefix,"
        " numbered_first, numbered_last, numbered_count, delivered_from, delivered_to,"
        " range_source from fct_file_reads order by called_at",
    )
    assert got == [
        # tab style, offset 10 + limit 3 -> asks 10..12; shows 10, 11, 12
        ("toolu_01A8ReadTab", "/home/dev/shop/app.py", "read-tool", 10, 12, False,
         10, 12, 3, 10, 12, "result"),
        # arrow style, no offset/limit -> asks 1..2000 (default limit); the file has 4 lines
        ("toolu_01A8ReadArrow", "/home/dev/shop/src/util.py", "read-tool", 1, 2000, False,
         1, 4, 4, 1, 4, "result"),
        # limit 2 and no offset: a prefix read of lines 1..2 (of 30)
        ("toolu_01A8ReadLimit", "/home/dev/shop/README.md", "read-tool", 1, 2, True,
         1, 2, 2, 1, 2, "result"),
    ]  # fmt: skip
    assert rows(
        con,
        "select tur_start_line, tur_num_lines, tur_total_lines from fct_tool_calls"
        " order by called_at",
    ) == [(None, None, None), (1, 4, 4), (1, 2, 30)]


def test_bash_truncation_markers(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("a9"))
    assert rows(
        con,
        "select tool_use_id, is_truncated, trunc_chars, trunc_lines, is_persisted"
        " from fct_tool_calls order by called_at",
    ) == [
        ("toolu_01A9Chars", True, 2057, None, False),
        ("toolu_01A9Lines", True, None, 102, False),
    ]


def test_persisted_output(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("aa"))
    got = rows(
        con,
        "select is_truncated, is_persisted, trunc_chars, trunc_lines, duration_s,"
        " starts_with(result_head, '<persisted-output>') from fct_tool_calls",
    )
    # call at 18:00:01, result at 18:00:41
    assert got == [(True, True, None, None, 40.0, True)]


def test_tool_use_result_as_string_error_dict_and_null(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("ab"))
    assert rows(
        con,
        "select tool_name, has_result, is_error, duration_s from fct_tool_calls order by called_at",
    ) == [
        # string toolUseResult: the tool_result block's is_error is the truth; 0.1 s apart
        ("Edit", True, True, 0.1),
        # dict with durationMs 7 beats the 1 s between the call and result lines
        ("Glob", True, False, 0.007),
        # null toolUseResult: still a result, timed by the 0.25 s between the lines
        ("Grep", True, False, 0.25),
    ]


def test_interrupt(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("ac"))
    assert rows(
        con, "select is_interrupt, is_rejected, is_error, duration_s from fct_tool_calls"
    ) == [(True, False, True, 19.0)]
    # the user line after it is an ordinary user event holding the marker text
    assert rows(con, "select role, text from raw_events where line_no = 4") == [
        ("user", "[Request interrupted by user for tool use]")
    ]
    assert one(con, "select count(*) from fct_events where line_no = 4") == 1


def test_rejected_tool_use(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("ad"))
    assert rows(con, "select is_rejected, is_interrupt, is_error from fct_tool_calls") == [
        (True, False, True)
    ]


def test_hook_additional_context_quotes_a_lesson_id(tmp_path: Path) -> None:
    _, con = load(tmp_path, fixture("ae"))
    assert rows(con, "select line_no, source, lesson_id, session_id from raw_mentions") == [
        (1, "hook", "L-0042", sid("ae"))
    ]
    assert rows(con, "select line_type, subtype from fct_events where line_no = 1") == [
        ("attachment", "hook_additional_context")
    ]


def test_unknown_line_type_is_kept_and_counted_not_an_error(tmp_path: Path) -> None:
    report, con = load(tmp_path, fixture("af"))
    assert report.totals["load_errors"] == 0
    assert rows(
        con, "select line_no, line_type, is_known_type from raw_events order by line_no"
    ) == [(1, "user", True), (2, "worktree-state", False), (3, "assistant", True)]
    # it has a sessionId, so it is an event of the session too
    assert one(con, "select count(*) from fct_events where not is_known_type") == 1


def test_one_line_summary_file_is_normal(tmp_path: Path) -> None:
    report, con = load(tmp_path, fixture("b0"))
    assert (report.files_loaded, report.lines_loaded, report.totals["load_errors"]) == (1, 1, 0)
    assert rows(con, "select line_type, session_id from raw_events") == [("summary", None)]
    assert report.totals["sessions"] == 0
