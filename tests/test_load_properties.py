"""Property tests of the loader (STYLE.md convention 13).

Each example writes a tiny tree under a fresh temporary folder and ingests it into its own
DuckDB file, so the example counts stay small.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_analytics.ingestion import ingest

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SESSION = "d0000000-0000-4000-8000-0000000000d0"
REPLAY = "d1000000-0000-4000-8000-0000000000d1"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**6) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def claude_records(draw: st.DrawFn) -> dict[str, Any]:
    """Claude-like lines: real keys, arbitrary (often wrong) values."""
    record: dict[str, Any] = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=3))
    record["type"] = draw(st.sampled_from(["user", "assistant", "system", "attachment",
                                           "progress", "summary", "bogus", 7]))  # fmt: skip
    record["uuid"] = f"d0d0d0d0-0000-4000-8000-{draw(st.integers(0, 30)):012x}"
    record["sessionId"] = SESSION
    record["timestamp"] = draw(st.sampled_from(["2026-01-07T10:00:00.000Z", "not a time", None]))
    content = draw(
        st.one_of(
            json_values,
            st.lists(
                st.fixed_dictionaries(
                    {
                        "type": st.sampled_from(["text", "tool_use", "tool_result"]),
                        "id": st.sampled_from(["toolu_1", "toolu_2", None]),
                        "tool_use_id": st.sampled_from(["toolu_1", "toolu_2", 3]),
                        "name": st.sampled_from(["Read", "Bash", "Task", None]),
                        "input": json_values,
                        "content": json_values,
                        "text": json_values,
                    }
                ),
                max_size=3,
            ),
        )
    )
    record["message"] = draw(st.sampled_from([None, {"role": "user"}])) or {
        "id": draw(st.sampled_from(["msg_1", "msg_2"])),
        "content": content,
        "usage": draw(json_values),
    }
    record["toolUseResult"] = draw(json_values)
    return record


@st.composite
def codex_records(draw: st.DrawFn) -> dict[str, Any]:
    item = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=3))
    kinds = ["message", "function_call", "function_call_output", "custom_tool_call"]
    item["type"] = draw(st.sampled_from([*kinds, "local_shell_call", "reasoning"]))
    item["call_id"] = draw(st.sampled_from(["call_1", "call_2", None]))
    item["arguments"] = draw(st.one_of(json_values, json_values.map(json.dumps)))
    item["output"] = draw(st.one_of(json_values, st.text(max_size=40)))
    item["action"] = draw(json_values)
    if draw(st.booleans()):
        return item  # bare era
    kind = draw(
        st.sampled_from(["response_item", "event_msg", "session_meta", "turn_context", "x"])
    )
    return {"timestamp": "2026-01-07T10:00:00.000Z", "type": kind, "payload": item}


def encoded(records: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[bytes]:
    return records.map(lambda r: json.dumps(r).encode())


raw_lines = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b""))
claude_lines = st.lists(st.one_of(raw_lines, encoded(claude_records())), min_size=1, max_size=8)
codex_lines = st.lists(st.one_of(raw_lines, encoded(codex_records())), min_size=1, max_size=8)


def write_tree(root: Path, claude: list[bytes], codex: list[bytes]) -> None:
    project = root / "projects" / "-home-dev-shop"
    project.mkdir(parents=True)
    (project / f"{SESSION}.jsonl").write_bytes(b"\n".join(claude) + b"\n")
    day = root / "codex" / "sessions" / "2026" / "01" / "07"
    day.mkdir(parents=True)
    name = "rollout-2026-01-07T05-00-00-019b9000-0000-7000-8000-00000000d001.jsonl"
    (day / name).write_bytes(b"\n".join(codex) + b"\n")


def counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = ["raw_events", "raw_load_errors", "raw_tool_calls", "raw_tool_results",
                  "fct_events", "fct_tool_calls", "fct_messages", "dim_agent_runs",
                  "fct_load_errors"]  # fmt: skip
        return {t: con.execute(f"select count(*) from {t}").fetchone()[0] for t in tables}
    finally:
        con.close()


@SETTINGS
@given(claude=claude_lines, codex=codex_lines)
def test_every_non_blank_line_is_an_event_or_an_error(
    claude: list[bytes], codex: list[bytes]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_tree(root / "in", claude, codex)
        report = ingest(root / "w.duckdb", [root / "in"])  # never raises
        assert report.lines_loaded == len(claude) + len(codex)
        con = duckdb.connect(str(root / "w.duckdb"), read_only=True)
        seen = con.execute(
            "select path, line_no from raw_events join raw_files using (file_id)"
            " union all select path, line_no from raw_load_errors order by all"
        ).fetchall()
        con.close()
        expected = sorted(
            (str(path), number)
            for path, lines in (
                (root / "in" / "projects" / "-home-dev-shop" / f"{SESSION}.jsonl", claude),
                (next((root / "in" / "codex").rglob("*.jsonl")), codex),
            )
            for number, text in enumerate(lines, start=1)
            # a leading BOM is not text (the loader drops it): a line of only a BOM is blank
            if text.removeprefix(b"\xef\xbb\xbf").strip()
        )
        # each non-blank line exactly once: as an event or as an error, never both, never lost
        assert sorted(seen) == expected


@SETTINGS
@given(claude=claude_lines, codex=codex_lines)
def test_loading_twice_equals_loading_once(claude: list[bytes], codex: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_tree(root / "in", claude, codex)
        ingest(root / "once.duckdb", [root / "in"])
        ingest(root / "twice.duckdb", [root / "in"])
        again = ingest(root / "twice.duckdb", [root / "in"])
        assert (again.changed, again.lines_loaded) == (False, 0)
        assert counts(root / "twice.duckdb") == counts(root / "once.duckdb")


@SETTINGS
@given(claude=st.lists(encoded(claude_records()), min_size=1, max_size=6))
def test_a_replayed_copy_adds_no_events_or_calls(claude: list[bytes]) -> None:
    # a resumed session replays lines with the same uuid into another file: the marts must
    # not change (lines without a uuid do not exist here: every generated record has one)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_tree(root / "in", claude, [b"{}"])
        ingest(root / "one.duckdb", [root / "in"])
        copy = root / "in" / "projects" / "-home-dev-shop" / f"{REPLAY}.jsonl"
        copy.write_bytes(b"\n".join(claude) + b"\n")
        ingest(root / "two.duckdb", [root / "in"])
        one, two = counts(root / "one.duckdb"), counts(root / "two.duckdb")
        for mart in ("fct_events", "fct_tool_calls", "fct_messages"):
            assert two[mart] == one[mart], mart
