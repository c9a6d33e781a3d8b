"""Loading transcript files: bad input, incremental runs, the single transaction.

Malformed files are built in ``tmp_path``. Each line below is a complete Claude Code user line
with its own uuid, so a count of ``raw_events`` is a count of lines loaded.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics import refresh, transform
from lessons_analytics.ingestion import IngestReport, ingest

DATA = Path(__file__).parent / "data"
SESSION = "c0000000-0000-4000-8000-0000000000c0"


def line(n: int, text: str = "hello", session: str = SESSION) -> bytes:
    record = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/shop",
        "sessionId": session,
        "version": "2.0.30",
        "type": "user",
        "message": {"role": "user", "content": f"{text} {n}"},
        "uuid": f"c0c0c0c0-0000-4000-8000-{n:012x}",
        "timestamp": f"2026-01-06T08:00:{n:02d}.000Z",
    }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "projects"
    (root / "-home-dev-shop").mkdir(parents=True)
    return root


def session_file(root: Path, data: bytes, name: str = SESSION) -> Path:
    path = root / "-home-dev-shop" / f"{name}.jsonl"
    path.write_bytes(data)
    return path


def run(tmp_path: Path, *paths: Path) -> IngestReport:
    return ingest(tmp_path / "w.duckdb", list(paths))


def query(tmp_path: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def loaded_lines(tmp_path: Path) -> list[int]:
    return [r[0] for r in query(tmp_path, "select line_no from raw_events order by line_no")]


def errors(tmp_path: Path) -> list[tuple[Any, ...]]:
    return query(tmp_path, "select file, line, reason from fct_load_errors order by file, line")


def bump_mtime(path: Path) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


# --- bad input -------------------------------------------------------------------------------


def test_invalid_json_line_is_reported_and_the_rest_loads(tmp_path: Path) -> None:
    root = tree(tmp_path)
    path = session_file(root, line(1) + b'{"type":"user","message":\n' + line(3))
    report = run(tmp_path, root)
    assert loaded_lines(tmp_path) == [1, 3]
    ((file, number, reason),) = errors(tmp_path)
    assert (file, number) == (str(path), 2)
    assert reason.startswith("invalid JSON")
    assert report.totals["load_errors"] == 1
    assert report.totals["errors"] == [{"file": str(path), "line": 2, "reason": reason}]


def test_non_utf8_line_is_reported_as_such(tmp_path: Path) -> None:
    root = tree(tmp_path)
    session_file(root, line(1) + b'{"type":"user","text":"caf\xe9"}\n' + line(3))
    run(tmp_path, root)
    assert loaded_lines(tmp_path) == [1, 3]
    ((_, number, reason),) = errors(tmp_path)
    assert number == 2
    assert "UTF-8" in reason


@pytest.mark.parametrize("value", [b"[1, 2, 3]", b'"just a string"', b"42", b"null"])
def test_json_line_that_is_not_an_object(tmp_path: Path, value: bytes) -> None:
    root = tree(tmp_path)
    session_file(root, line(1) + value + b"\n" + line(3))
    run(tmp_path, root)
    assert loaded_lines(tmp_path) == [1, 3]
    assert [(n, r) for _, n, r in errors(tmp_path)] == [(2, "not a JSON object")]


def test_blank_lines_are_skipped_but_keep_line_numbers(tmp_path: Path) -> None:
    root = tree(tmp_path)
    session_file(root, line(1) + b"\n   \n" + line(4))
    report = run(tmp_path, root)
    assert loaded_lines(tmp_path) == [1, 4]
    assert errors(tmp_path) == []
    assert report.lines_loaded == 4  # lines consumed, blank ones included


def test_half_written_last_line_waits_for_the_next_run(tmp_path: Path) -> None:
    root = tree(tmp_path)
    second = line(2)
    path = session_file(root, line(1) + second[:40])
    report = run(tmp_path, root)
    # only the complete line is consumed; the partial one is not an error
    assert (report.lines_loaded, loaded_lines(tmp_path), errors(tmp_path)) == (1, [1], [])
    assert query(tmp_path, "select consumed_lines, consumed_bytes from fct_ingest_state") == [
        (1, len(line(1)))
    ]
    with path.open("ab") as handle:
        handle.write(second[40:])  # the rest, with its newline
    report = run(tmp_path, root)
    assert (report.files_loaded, report.lines_loaded) == (1, 1)
    assert loaded_lines(tmp_path) == [1, 2]  # line 2 exactly once
    assert errors(tmp_path) == []
    assert run(tmp_path, root).changed is False


def test_grown_file_loads_only_its_new_lines(tmp_path: Path) -> None:
    root = tree(tmp_path)
    path = session_file(root, line(1) + line(2))
    assert run(tmp_path, root).lines_loaded == 2
    with path.open("ab") as handle:
        handle.write(line(3) + line(4))
    report = run(tmp_path, root)
    assert (report.files_loaded, report.lines_loaded) == (1, 2)
    assert query(tmp_path, "select count(*) from raw_events") == [(4,)]
    assert loaded_lines(tmp_path) == [1, 2, 3, 4]
    assert query(tmp_path, "select count(*) from fct_events") == [(4,)]


def test_errors_of_a_grown_file_are_kept_once(tmp_path: Path) -> None:
    root = tree(tmp_path)
    path = session_file(root, line(1) + b"{oops\n")
    run(tmp_path, root)
    with path.open("ab") as handle:
        handle.write(line(3))
    run(tmp_path, root)
    assert loaded_lines(tmp_path) == [1, 3]
    assert [n for _, n, _ in errors(tmp_path)] == [2]


@pytest.mark.parametrize("longer", [False, True])
def test_rewritten_file_replaces_its_rows(tmp_path: Path, longer: bool) -> None:
    root = tree(tmp_path)
    path = session_file(root, line(1) + b"{bad\n" + line(3) + line(4))
    run(tmp_path, root)
    assert len(loaded_lines(tmp_path)) == 3 and len(errors(tmp_path)) == 1
    # a new first line: the head no longer matches, whether the file got shorter or longer
    new = line(11, "rewritten") + line(12, "rewritten")
    if longer:
        new += b"".join(line(n, "rewritten") for n in range(13, 20))
    path.write_bytes(new)
    bump_mtime(path)
    run(tmp_path, root)
    texts = [r[0] for r in query(tmp_path, "select text from raw_events order by line_no")]
    expected = 9 if longer else 2
    assert len(texts) == expected
    assert all(t.startswith("rewritten") for t in texts)
    assert errors(tmp_path) == []  # the old file's error went with its rows


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_unreadable_file_is_an_error_until_it_becomes_readable(tmp_path: Path) -> None:
    root = tree(tmp_path)
    session_file(root, line(1), name="c1000000-0000-4000-8000-0000000000c1")
    locked = session_file(root, line(2))
    locked.chmod(0)
    try:
        report = run(tmp_path, root)
        ((file, number, reason),) = errors(tmp_path)
        assert (file, number) == (str(locked), 0)
        assert reason.startswith("unreadable")
        assert report.files_loaded == 1
        # a re-run reports it once, not once per run
        run(tmp_path, root)
        assert query(tmp_path, "select count(*) from raw_load_errors") == [(1,)]
    finally:
        locked.chmod(0o644)
    report = run(tmp_path, root)
    assert report.files_loaded == 1
    assert errors(tmp_path) == []
    assert query(tmp_path, "select count(*) from raw_events") == [(2,)]


def test_vanished_file_is_reported_once_and_cleared_when_it_loads(tmp_path: Path) -> None:
    # a dangling symlink is listed like a file but cannot be opened (works as root too)
    root = tree(tmp_path)
    real = tmp_path / "elsewhere.jsonl"
    link = root / "-home-dev-shop" / f"{SESSION}.jsonl"
    link.symlink_to(real)
    run(tmp_path, root)
    run(tmp_path, root)
    ((file, number, reason),) = errors(tmp_path)
    assert (file, number) == (str(link), 0)
    assert reason.startswith("unreadable")
    assert query(tmp_path, "select count(*) from raw_load_errors") == [(1,)]
    real.write_bytes(line(1))
    report = run(tmp_path, root)
    assert (report.files_loaded, report.lines_loaded) == (1, 1)
    assert errors(tmp_path) == []


def test_unchanged_tree_is_a_no_op(tmp_path: Path) -> None:
    first = run(tmp_path, DATA)
    before = query(tmp_path, "select count(*) from raw_events")
    again = run(tmp_path, DATA)
    assert (again.changed, again.files_loaded, again.lines_loaded) == (False, 0, 0)
    assert again.files_seen == first.files_seen
    assert query(tmp_path, "select count(*) from raw_events") == before
    assert again.totals == first.totals


def test_rewritten_meta_json_is_reloaded_not_duplicated(tmp_path: Path) -> None:
    src = DATA / "projects" / "-home-dev-shop" / "a6000000-0000-4000-8000-0000000000a6"
    root = tmp_path / "projects" / "-home-dev-shop"
    shutil.copytree(src, root / src.name)
    meta = next((root / src.name / "subagents").glob("*.meta.json"))
    meta.write_text('{"agentType":"Explore","description":"x"}')
    run(tmp_path, root)
    # the sidecar is rewritten whole, longer, with the same first bytes
    meta.write_text('{"agentType":"Explore","description":"x","toolUseId":"toolu_1"}')
    bump_mtime(meta)
    run(tmp_path, root)
    assert query(tmp_path, "select agent_type, tool_use_id from raw_subagent_meta") == [
        ("Explore", "toolu_1")
    ]
    assert errors(tmp_path) == []


# --- the transaction -------------------------------------------------------------------------


def test_crash_mid_run_leaves_the_warehouse_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(tmp_path)
    path = session_file(root, line(1) + line(2))
    run(tmp_path, root)
    tables = ("raw_events", "raw_files", "fct_events", "fct_ingest_state")
    snapshot = {t: query(tmp_path, f"select * from {t} order by all") for t in tables}
    with path.open("ab") as handle:
        handle.write(line(3))

    def crash(*_args: object) -> list[str]:
        raise RuntimeError("killed halfway")

    # the raw rows of line 3 and the new file state are written before the layers are built
    # (whole, or for the touched sessions: this run is incremental)
    monkeypatch.setattr(transform, "build", crash)
    monkeypatch.setattr(refresh, "build_sessions", crash)
    with pytest.raises(RuntimeError, match="killed halfway"):
        run(tmp_path, root)
    assert {t: query(tmp_path, f"select * from {t} order by all") for t in tables} == snapshot
    monkeypatch.undo()
    report = run(tmp_path, root)
    assert (report.files_loaded, report.lines_loaded) == (1, 1)
    assert loaded_lines(tmp_path) == [1, 2, 3]
    assert query(tmp_path, "select count(*) from fct_events") == [(3,)]


# --- the whole fixture tree ----------------------------------------------------------------


def test_whole_fixture_tree_totals(tmp_path: Path) -> None:
    report = run(tmp_path, DATA / "projects", DATA / "codex")
    # Claude: 17 session files + 2 flat agents + 1 subagent + 1 meta.json; Codex: 4 rollouts
    assert (report.files_seen, report.files_loaded) == (25, 25)
    # 113 JSONL lines (wc -l) + the meta.json document
    assert report.lines_loaded == 114
    t = report.totals
    assert t["load_errors"] == 0
    # sessions: 15 Claude (all but the empty a7 and the summary-only b0; e3 and b3 apart)
    # + 4 Codex; runs: those 19 main runs + sidechain, flat agent, folder subagent (warm-up
    # dropped)
    assert (t["sessions"], t["agent_runs"]) == (19, 22)
    # Claude 20 calls (a1 1, a2 2, e3 1, b3 1, a4 1, a5 1 + 1 in its agent, a6 1, a8 3, a9 2,
    # aa 1, ab 3, ac 1, ad 1) + Codex 7
    assert t["tool_calls"] == 27
    assert t["by_tool"] == {
        "Bash": 9,
        "Read": 3,
        "Glob": 2,
        "Grep": 2,
        "Task": 2,
        "exec_command": 2,
        "shell": 2,
        "Agent": 1,
        "Edit": 1,
        "apply_patch": 1,
        "local_shell_call": 1,
        "shell_command": 1,
    }
    assert query(tmp_path, "select count(*) from fct_file_reads where method = 'read-tool'") == [
        (3,)
    ]
