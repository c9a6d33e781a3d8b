"""Hostile input: no line, file or path stops a run.

Each wrong-typed line is rejected on its own with ``file:line`` and the column at fault, and
the line after it (with its own tool call) still loads. Files that are not regular files are
counted by name without being opened for a blocking read. Everything is built in ``tmp_path``.
"""

from __future__ import annotations

import copy
import json
import os
import socket
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lessons_analytics.cli import cli
from lessons_analytics.errors import SourceNotFound
from lessons_analytics.ingestion import ingest
from tests.support.dbrows import rows as query

SESSION = "d0000000-0000-4000-8000-0000000000d0"
ROLLOUT = "rollout-2026-01-05T09-00-00-019b8f00-0000-7000-8000-00000000d001.jsonl"


def claude_call(n: int, **extra: Any) -> dict[str, Any]:
    """A Claude Code assistant line with one Read call (id ``toolu_<n>``)."""
    line = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/shop",
        "sessionId": SESSION,
        "version": "2.0.30",
        "type": "assistant",
        "requestId": f"req_{n}",
        "message": {
            "id": f"msg_{n}",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 10, "output_tokens": 5},
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{n}",
                    "name": "Read",
                    "input": {"file_path": "/home/dev/shop/a.py", "offset": 1, "limit": 5},
                }
            ],
        },
        "uuid": f"d0d0d0d0-0000-4000-8000-{n:012x}",
        "timestamp": f"2026-01-06T08:00:{n:02d}.000Z",
    }
    line.update(extra)
    return line


def put(record: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``record`` with the dotted ``path`` (list indexes as digits) set to value."""
    out = copy.deepcopy(record)
    node: Any = out
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if key.isdigit() else node[key]
    node[int(keys[-1]) if keys[-1].isdigit() else keys[-1]] = value
    return out


def write_jsonl(path: Path, records: list[Any], *, prefix: bytes = b"", eol: bytes = b"\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = b"".join(json.dumps(r).encode() + eol for r in records)
    path.write_bytes(prefix + body)
    return path


def calls(db: Path) -> list[str]:
    return [r[0] for r in query(db, "select tool_use_id from fct_tool_calls order by 1")]


def errors(db: Path) -> list[tuple[Any, ...]]:
    return query(db, "select file, line, reason from fct_load_errors order by file, line")


# --- wrong types in known fields ---------------------------------------------------------

CLAUDE_WRONG = [
    ("sessionId", {"id": 1}, "session_id"),
    ("sessionId", ["a"], "session_id"),
    ("uuid", ["a"], "uuid"),
    ("message.content.0.id", {"id": 1}, "tool_use_id"),
    ("message.content.0.name", {"name": "Read"}, "tool_name"),
    ("timestamp", "yesterday at noon", ".ts"),
    ("timestamp", 1767686400, ".ts"),
    ("timestamp", "2026-13-45T99:00:00Z", ".ts"),
    ("message.usage.input_tokens", "12", "input_tokens"),
    ("message.usage.output_tokens", True, "output_tokens"),
    ("message.usage.input_tokens", 2**64, "input_tokens"),
    ("message.content.0.input.offset", 1e20, "read_offset"),
    ("cwd", {"path": "/x"}, "cwd"),
    ("version", [2, 0], "version"),
    ("requestId", {"r": 1}, "request_id"),
    ("message.model", 5, "model"),
]


@pytest.mark.parametrize(("field", "value", "column"), CLAUDE_WRONG)
def test_claude_wrong_type_rejects_that_line_only(
    tmp_path: Path, field: str, value: Any, column: str
) -> None:
    projects = tmp_path / "projects"
    path = write_jsonl(
        projects / "-home-dev-shop" / f"{SESSION}.jsonl",
        [claude_call(1), put(claude_call(2), field, value), claude_call(3)],
    )
    db = tmp_path / "w.duckdb"
    ingest(db, [projects])
    ((file, line, reason),) = errors(db)
    assert (file, line) == (str(path), 2)
    assert reason.startswith("wrong type: ") and column in reason
    # the rejected line left nothing behind in any table, its neighbours loaded whole
    assert calls(db) == ["toolu_1", "toolu_3"]
    assert query(db, "select line_no from raw_events order by 1") == [(1,), (3,)]
    assert query(db, "select count(*) from raw_file_reads") == [(2,)]


def test_a_rejected_line_takes_back_its_earlier_blocks(tmp_path: Path) -> None:
    # the first block is fine and already added when the second fails: none of it stays
    record = claude_call(2)
    good = copy.deepcopy(record["message"]["content"][0])
    record["message"]["content"].insert(0, {**good, "id": "toolu_2a"})
    record = put(record, "message.content.1.input.offset", 2**70)
    projects = tmp_path / "projects"
    write_jsonl(projects / "p" / f"{SESSION}.jsonl", [claude_call(1), record])
    db = tmp_path / "w.duckdb"
    ingest(db, [projects])
    assert calls(db) == ["toolu_1"]
    assert query(db, "select count(*) from raw_tool_calls where line_no = 2") == [(0,)]
    assert len(errors(db)) == 1


def codex_lines() -> list[dict[str, Any]]:
    ts = "2026-01-05T16:00:0{}.000Z".format
    return [
        {
            "timestamp": ts(0),
            "type": "session_meta",
            "payload": {
                "id": "019b8f00-0000-7000-8000-00000000d001",
                "cwd": "/home/dev/shop",
                "cli_version": "0.104.0",
                "source": "cli",
            },
        },  # fmt: skip
        {"timestamp": ts(1), "type": "turn_context", "payload": {"cwd": "/home/dev/shop"}},
        *(
            {
                "timestamp": ts(2 + n),
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": f"call_{n}",
                    "arguments": json.dumps({"command": ["ls"], "workdir": "/home/dev/shop"}),
                },
            }
            for n in range(3)
        ),
        {
            "timestamp": ts(6),
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "call_0",
                "output": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nok\n",
            },
        },
    ]


@pytest.mark.parametrize(
    ("line", "field", "value", "column"),
    [
        (3, "payload.call_id", {"c": 1}, "tool_use_id"),
        (4, "payload.arguments", json.dumps({"command": ["ls"], "workdir": {"w": 1}}), "cwd"),
        (6, "payload.output", "Process exited with code " + "9" * 30 + "\nOutput:\n", "exit_code"),
        (6, "payload.output", '{"output": "", "metadata": {"exit_code": 1e30}}', "exit_code"),
    ],
    ids=["call_id-object", "workdir-object", "exit-code-text-1e30", "exit-code-json-1e30"],
)
def test_codex_wrong_type_rejects_that_line_only(
    tmp_path: Path, line: int, field: str, value: Any, column: str
) -> None:
    records = codex_lines()
    records[line - 1] = put(records[line - 1], field, value)
    path = write_jsonl(tmp_path / "sessions" / ROLLOUT, records)
    db = tmp_path / "w.duckdb"
    ingest(db, [tmp_path / "sessions"])
    ((file, number, reason),) = errors(db)
    assert (file, number) == (str(path), line)
    assert column in reason
    kept = {"call_0", "call_1", "call_2"} - ({"call_1"} if line == 4 else set())
    if line == 3:
        kept -= {"call_0"}
    assert set(calls(db)) == kept


@pytest.mark.parametrize("field", ["payload.id", "payload.cli_version"])
def test_codex_bad_session_meta_does_not_poison_the_rest_of_the_file(
    tmp_path: Path, field: str
) -> None:
    # The session_meta line is rejected; the parser's context is restored, so the later
    # lines are not rejected one by one for carrying the object along, and they join the
    # session the rollout's file name gives.
    records = codex_lines()
    records[0] = put(records[0], field, {"x": 1})
    write_jsonl(tmp_path / "sessions" / ROLLOUT, records)
    db = tmp_path / "w.duckdb"
    ingest(db, [tmp_path / "sessions"])
    assert [(line, "session_meta" in reason or "raw_events" in reason)
            for _f, line, reason in errors(db)] == [(1, True)]  # fmt: skip
    assert query(db, "select count(*) from raw_events") == [(len(records) - 1,)]
    session = ROLLOUT.rsplit("-", 5)[-5:]
    assert query(db, "select distinct session_id from raw_events") == [
        ("-".join(session).removesuffix(".jsonl"),)
    ]
    assert query(db, "select count(*) from fct_tool_calls") == [(3,)]


# --- files that are not transcripts, paths no file system holds -------------------------


def test_fifo_socket_and_dev_zero_are_counted_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-home-dev-shop"
    write_jsonl(folder / f"{SESSION}.jsonl", [claude_call(1)])
    os.mkfifo(folder / "fifo.jsonl")  # opening it for reading would block forever
    (folder / "zero.jsonl").symlink_to("/dev/zero")  # reading it would never end
    sock_dir = Path(tempfile.mkdtemp(dir="/tmp"))  # AF_UNIX paths must be short
    (folder / "sock.jsonl").symlink_to(sock_dir / "s.jsonl")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(sock_dir / "s.jsonl"))
        db = tmp_path / "w.duckdb"
        report = ingest(db, [tmp_path / "projects"])
    finally:
        server.close()
    reasons = {Path(f).name: (line, r) for f, line, r in errors(db)}
    assert reasons == {
        "fifo.jsonl": (0, "not a regular file: a FIFO"),
        "zero.jsonl": (0, "not a regular file: a character device"),
        "sock.jsonl": (0, "not a regular file: a socket"),
    }
    assert (report.files_seen, report.files_loaded) == (4, 1)
    assert calls(db) == ["toolu_1"]


def test_a_special_file_that_goes_away_takes_its_error_with_it(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "p"
    write_jsonl(folder / f"{SESSION}.jsonl", [claude_call(1)])
    os.mkfifo(folder / "fifo.jsonl")
    db = tmp_path / "w.duckdb"
    ingest(db, [tmp_path / "projects"])
    ingest(db, [tmp_path / "projects"])
    assert query(db, "select count(*) from raw_load_errors") == [(1,)]  # once, not per run
    (folder / "fifo.jsonl").unlink()
    report = ingest(db, [tmp_path / "projects"])
    assert report.changed
    assert errors(db) == []


def test_unreadable_folder_and_file_are_counted_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    projects = tmp_path / "projects"
    write_jsonl(projects / "p" / f"{SESSION}.jsonl", [claude_call(1)])
    locked_file = write_jsonl(projects / "p" / "locked.jsonl", [claude_call(2)])
    locked_dir = projects / "locked"
    write_jsonl(locked_dir / "hidden.jsonl", [claude_call(3)])
    if os.geteuid() == 0:
        # root reads a chmod 000 file anyway: the same refusals, raised where the OS would
        real_scandir, real_open = os.scandir, os.open

        def scandir(path: Any) -> Any:
            if isinstance(path, str | Path) and Path(path) == locked_dir:
                raise PermissionError(13, "Permission denied", str(path))
            return real_scandir(path)

        def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            # the folder too: the no-op question's scan opens each folder by descriptor
            if isinstance(path, str | Path) and Path(path) in (locked_file, locked_dir):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "scandir", scandir)
        monkeypatch.setattr(os, "open", open_)
    locked_dir.chmod(0)
    locked_file.chmod(0)
    try:
        db = tmp_path / "w.duckdb"
        ingest(db, [projects])
    finally:
        locked_dir.chmod(0o755)
        locked_file.chmod(0o644)
    found = [(Path(f).name, line, r.split(":")[0]) for f, line, r in errors(db)]
    assert found == [("locked", 0, "unreadable folder"), ("locked.jsonl", 0, "unreadable")]
    assert calls(db) == ["toolu_1"]
    # readable again: both load and both errors are gone
    monkeypatch.undo()
    ingest(db, [projects])
    assert errors(db) == []
    assert calls(db) == ["toolu_1", "toolu_2", "toolu_3"]


def test_a_missing_source_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(SourceNotFound, match="nowhere"):
        ingest(tmp_path / "w.duckdb", [missing])
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "w.duckdb"), "ingest", str(missing)])
    assert result.exit_code == 1
    assert f"{missing}: no such file or folder" in result.output


@pytest.mark.parametrize(
    "cwd",
    ["/home/dev/" + "x" * 300, "/home/dev/" + "/".join(["y" * 250] * 20), "/home/dev/a\x00b"],
    ids=["name-over-255-bytes", "path-over-path-max", "nul-byte"],
)
def test_a_cwd_no_file_system_holds_stands_in_no_base(tmp_path: Path, cwd: str) -> None:
    projects = tmp_path / "projects"
    write_jsonl(projects / "p" / f"{SESSION}.jsonl", [claude_call(1, cwd=cwd)])
    db = tmp_path / "w.duckdb"
    ingest(db, [projects])
    assert errors(db) == []
    assert calls(db) == ["toolu_1"]
    assert query(db, "select cwd from fct_sessions") == [(cwd,)]


def test_byte_order_mark_and_crlf(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    projects = tmp_path / "projects"
    write_jsonl(projects / "p" / f"{SESSION}.jsonl", [claude_call(1), claude_call(2)],
                prefix=bom, eol=b"\r\n")  # fmt: skip
    write_jsonl(tmp_path / "sessions" / ROLLOUT, codex_lines(), prefix=bom)
    db = tmp_path / "w.duckdb"
    ingest(db, [projects, tmp_path / "sessions"])
    assert errors(db) == []
    assert calls(db) == ["call_0", "call_1", "call_2", "toolu_1", "toolu_2"]
    # the rollout kept its session: the session_meta line on the BOM line was read
    assert query(db, "select count(*) from fct_sessions") == [(2,)]
