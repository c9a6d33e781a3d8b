"""The second real corpus, Claude Code part (../shared/corpora/real2/claude), counted twice.

The expected numbers are computed here from a plain json scan, independently of the package:

- every line belongs to the run named by its own ``agentId`` (else by its ``agent-<id>.jsonl``
  file name, else the main run) and to its own ``sessionId``; lines are taken once by uuid;
- an agent is a warm-up when its file's first user message is ``"Warmup"``, when all its tool
  results are the literal ``"Warmup"``, or when its file has no user line and no call and no
  Task/Agent result anywhere names it; every line of a warm-up agent is dropped, wherever it
  is written;
- calls are tool_use blocks of the kept lines, by id.

Where a naive count disagrees, these rules decide (read from the files):

- the main files of this corpus carry copies of agent lines (same uuid, with ``agentId``,
  even of other sessions' agents): they belong to the agent's run, not to the main run;
- 14 one-line agent files (2.0.57/2.0.58) hold a reply to a warm-up prompt that was never
  written, two per session start, and nothing spawned them: counting only files whose first
  user message is "Warmup" gives 33 agent runs instead of 21
  (int_agent_runs_identified.sql, rule 4).
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lessons_analytics.ingestion import ingest
from tests.support.dbrows import rows as _rows

REAL2 = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "real2"
CLAUDE = REAL2 / "claude"
SIMPLE_SHELL_READS = 11  # of the 45 shell reads the package finds
pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(not CLAUDE.is_dir(), reason="real2 corpus not present"),
]


def _records(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").split("\n")  # not splitlines: U+2028 in texts
    return [json.loads(line) for line in lines if line.strip()]


def _uses(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        block
        for r in records
        if r.get("type") == "assistant"
        for block in r["message"].get("content") or []
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]


def _results(records: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Any]]:
    out = []
    for r in records:
        content = r.get("message", {}).get("content") if r.get("type") == "user" else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                text = block.get("content")
                if isinstance(text, list):
                    text = "".join(x.get("text", "") for x in text if isinstance(x, dict))
                out.append((r, text))
    return out


def _independent() -> dict[str, Any]:
    files = {p: _records(p) for p in sorted(CLAUDE.rglob("*.jsonl"))}
    spawned: set[str] = set()
    for records in files.values():
        for record, text in _results(records):
            tur = record.get("toolUseResult")
            if isinstance(tur, dict) and isinstance(tur.get("agentId"), str):
                spawned.add(tur["agentId"])
            if isinstance(text, str):
                spawned.update(re.findall(r"agentId: (\w+)", text))

    def is_warmup(path: Path, records: list[dict[str, Any]]) -> bool:
        users = [r for r in records if r.get("type") == "user"]
        if users and users[0].get("message", {}).get("content") == "Warmup":
            return True
        texts = [text for _r, text in _results(records)]
        if texts and all(isinstance(t, str) and t.strip() == "Warmup" for t in texts):
            return True
        return not users and not _uses(records) and path.stem[6:] not in spawned

    warmups = {
        p.stem[6:] for p, r in files.items() if p.name.startswith("agent-") and is_warmup(p, r)
    }
    lines: dict[Any, tuple[dict[str, Any], str]] = {}
    for path, records in files.items():
        hint = path.stem[6:] if path.name.startswith("agent-") else "main"
        for n, record in enumerate(records):
            lines.setdefault(
                record.get("uuid") or (path, n), (record, record.get("agentId") or hint)
            )
    kept = [(r, a) for r, a in lines.values() if a not in warmups and r.get("sessionId")]
    calls: dict[str, dict[str, Any]] = {}
    for record, _agent in kept:
        for block in _uses([record]):
            calls.setdefault(block["id"], block)
    return {
        "calls": calls,
        "by_tool": Counter(block["name"] for block in calls.values()),
        "sessions": {r["sessionId"] for r, _a in kept},
        "runs": {(r["sessionId"], a) for r, a in kept},
        "warmups": warmups,
    }


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    db = tmp_path_factory.mktemp("real2") / "w.duckdb"
    return db, ingest(db, [CLAUDE]).document()


def test_loads_without_error(loaded: tuple[Path, dict[str, Any]]) -> None:
    _db, doc = loaded
    assert doc["load_errors"] == 0, doc["errors"]
    assert doc["files_seen"] == 46


def test_calls_sessions_and_runs_match_an_independent_count(
    loaded: tuple[Path, dict[str, Any]],
) -> None:
    db, doc = loaded
    expected = _independent()
    assert doc["tool_calls"] == len(expected["calls"]) == 967
    assert doc["by_tool"] == dict(expected["by_tool"])
    assert (doc["by_tool"]["Bash"], doc["by_tool"]["Read"]) == (360, 181)
    assert doc["sessions"] == len(expected["sessions"]) == 14
    runs = set(_rows(db, "select session_id, agent_key from dim_agent_runs"))
    assert runs == expected["runs"]
    assert doc["agent_runs"] == 21
    warm = {
        a for (a,) in _rows(db, "select agent_key from int_agent_runs_identified where is_warmup")
    }
    assert warm == expected["warmups"] and len(warm) == 22


def test_reads_match_an_independent_count(loaded: tuple[Path, dict[str, Any]]) -> None:
    db, doc = loaded
    calls = _independent()["calls"]
    # every Read call with a path is one read of that path
    reads = Counter(
        b["input"]["file_path"]
        for b in calls.values()
        if b["name"] == "Read" and isinstance(b["input"].get("file_path"), str)
    )
    found = Counter(
        path for (path,) in _rows(db, "select path from fct_file_reads where method = 'read-tool'")
    )
    assert found == reads and sum(reads.values()) == 181
    # the simplest shell reads, `cat|head|tail [-n N] FILE [2>/dev/null] [|| echo ...]`, each
    # give one read of FILE with that method; the package reads more shapes than this (45 in
    # all: pipes, `&&` chains, grep), so this part is a lower bound, the total is pinned below
    simple = {}
    for block in calls.values():
        command = block["input"].get("command") if block["name"] == "Bash" else None
        words = shlex.split(command.split("||")[0]) if isinstance(command, str) else []
        words = [w for w in words if w != "2>/dev/null"]
        # a glob (`head -50 dir/*`) names no file the package can know: it records no read
        if (
            words
            and words[0] in ("cat", "head", "tail")
            and len(words) in (2, 3, 4)
            and (len(words) == 2 or re.fullmatch(r"-n|-\d+", words[1]))
            and not set("*?[") & set(words[-1])
        ):
            simple[block["id"]] = (words[0], words[-1])
    rows = _rows(
        db, "select tool_use_id, method, path from fct_file_reads where method <> 'read-tool'"
    )
    shell = {tid: (method, path) for tid, method, path in rows}
    assert all(shell.get(tid) == want for tid, want in simple.items()), simple
    assert len(simple) == SIMPLE_SHELL_READS
    assert doc["file_reads"] == 181 + 45


def test_all_of_real2_loads_without_error(tmp_path: Path) -> None:
    report = ingest(tmp_path / "w.duckdb", [REAL2])
    doc = report.document()
    assert doc["load_errors"] == 0, doc["errors"]
    assert doc["sessions"] > 100 and doc["tool_calls"] > 4000
