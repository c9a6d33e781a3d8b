"""The real corpus (../shared/corpora/real) loads with no error and exact counts.

The expected counts are computed here independently of the package: a plain json scan of
every file, counting tool_use blocks by id, dropping 2.0.x warm-up agent files.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from lessons_analytics.ingestion import ingest

REAL = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "real"
pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(not REAL.is_dir(), reason="real corpus not present"),
]


def _independent_counts() -> Counter[str]:
    calls: dict[str, str] = {}
    for path in sorted(REAL.rglob("*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        firsts = [r for r in records if r.get("type") == "user"]
        if firsts and firsts[0].get("message", {}).get("content") == "Warmup":
            continue
        for record in records:
            if record.get("type") != "assistant":
                continue
            for block in record["message"].get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    calls.setdefault(block["id"], block["name"])
    counts = Counter(calls.values())
    counts["<all>"] = len(calls)
    return counts


def _independent_warmups() -> int:
    files = {p: [json.loads(x) for x in p.read_text().split("\n") if x.strip()]
             for p in sorted(REAL.rglob("agent-*.jsonl"))}  # fmt: skip
    everything = "".join(p.read_text() for p in REAL.rglob("*.jsonl"))
    count = 0
    for path, records in files.items():
        users = [r for r in records if r.get("type") == "user"]
        if users and users[0].get("message", {}).get("content") == "Warmup":
            count += 1
            continue
        agent = path.stem.removeprefix("agent-")
        calls = [
            block
            for r in records
            if r.get("type") == "assistant"
            for block in r["message"].get("content") or []
            if block.get("type") == "tool_use"
        ]
        named = everything.count(agent) - path.read_text().count(agent)
        if not users and not calls and named == 0:
            count += 1
    return count


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    db = tmp_path_factory.mktemp("real") / "w.duckdb"
    report = ingest(db, [REAL])
    return db, report.document()


def test_loads_without_error(warehouse: tuple[Path, dict]) -> None:
    _db, doc = warehouse
    assert doc["load_errors"] == 0, doc["errors"]
    assert doc["files_seen"] == 109


def test_tool_call_counts_match_an_independent_count(warehouse: tuple[Path, dict]) -> None:
    _db, doc = warehouse
    expected = _independent_counts()
    assert doc["tool_calls"] == expected["<all>"]
    assert doc["by_tool"]["Bash"] == expected["Bash"] == 282
    assert doc["by_tool"]["Read"] == expected["Read"] == 181


def test_line_types_as_in_the_research_note(warehouse: tuple[Path, dict]) -> None:
    db, _doc = warehouse
    con = duckdb.connect(str(db), read_only=True)
    counts = dict(con.execute("select line_type, count(*) from raw_events group by 1").fetchall())
    assert counts["user"] == 1201
    assert counts["assistant"] == 1757
    assert counts["system"] == 131
    assert con.execute("select count(*) from raw_events where not is_known_type").fetchone() == (0,)


def test_warmups_dropped_and_subagents_linked(warehouse: tuple[Path, dict]) -> None:
    db, _doc = warehouse
    con = duckdb.connect(str(db), read_only=True)
    warmups = con.execute(
        "select count(*) from int_agent_runs_identified where is_warmup"
    ).fetchone()[0]
    # trace-formats.md §1.9: 28 of the 53 agent files start with the user message "Warmup";
    # 11 more are a warm-up's one-line reply without the prompt (no user line, no call, and
    # no other file names the agent): int_agent_runs_identified rule 4
    assert warmups == _independent_warmups() == 28 + 11
    linked = dict(
        con.execute(
            "select agent_id, spawned_by_tool_use_id is not null from dim_agent_runs"
            " where agent_id in ('ea02459f', 'c8d9b115', 'a2271d1')"
        ).fetchall()
    )
    assert linked == {"ea02459f": True, "c8d9b115": True, "a2271d1": True}


def test_second_run_is_a_no_op(warehouse: tuple[Path, dict]) -> None:
    db, doc = warehouse
    again = ingest(db, [REAL])
    assert again.files_loaded == 0
    assert not again.changed
    assert again.document()["tool_calls"] == doc["tool_calls"]
