"""The real Codex corpus (../shared/corpora/real2/codex) loads with no error and exact counts.

Every expected number is computed here from the files with a plain json scan, independently
of the package: tool calls by call id, sessions (resumed ones apart), legacy documents,
harness failures by kind, and the reads of a few simple command shapes with the range their
output delivered. Where the two could disagree, the comment says which rule decides.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics.ingestion import ingest

CODEX = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "real2" / "codex"
pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(not CODEX.is_dir(), reason="real2 corpus not present"),
]
SHELLS = {"shell", "exec_command", "shell_command", "local_shell_call", "container.exec"}


@dataclass
class Scan:
    calls: dict[str, str] = field(default_factory=dict)  # call id -> tool name (first copy)
    commands: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # id -> cmd, cwd
    outputs: dict[str, str] = field(default_factory=dict)  # call id -> output (first copy)
    sessions: set[str] = field(default_factory=set)
    resumed: set[str] = field(default_factory=set)
    legacy_files: int = 0
    files: int = 0


def _command(args: Any) -> str | None:
    if not isinstance(args, dict):
        return None
    cmd = args.get("command", args.get("cmd"))
    if isinstance(cmd, str):
        return cmd
    if isinstance(cmd, list) and len(cmd) >= 3 and cmd[1] in ("-lc", "-c"):
        return str(cmd[2])
    if isinstance(cmd, list) and "-Command" in cmd[:-1]:
        return str(cmd[cmd.index("-Command") + 1])  # powershell.exe … -Command <script>
    return None


def _scan() -> Scan:
    scan = Scan()
    for path in sorted(CODEX.rglob("rollout-*.jsonl")):
        scan.files += 1
        own: str | None = None
        cwd: str | None = None
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            payload = record.get("payload", record)
            kind = record.get("type")
            if kind == "session_meta" or (own is None and "instructions" in record):
                if own is None:
                    own = payload["id"]
                    scan.sessions.add(own)
                    cwd = payload.get("cwd") or cwd
                elif payload["id"] != own:
                    scan.resumed.add(own)
                continue
            if kind == "turn_context":
                cwd = payload.get("cwd") or cwd
            cwd = _item(scan, payload, cwd)
    for path in sorted(CODEX.rglob("rollout-*.json")):
        scan.files += 1
        scan.legacy_files += 1
        doc = json.loads(path.read_text(encoding="utf-8"))
        scan.sessions.add(doc["session"]["id"])
        for item in doc["items"]:
            for call in item.get("tool_calls") or []:
                args = json.loads(call["function"]["arguments"])
                _call(scan, call["id"], call["function"]["name"], args, None)
            if item.get("role") == "tool":
                scan.outputs.setdefault(item["tool_call_id"], item["content"])
    return scan


def _item(scan: Scan, item: dict[str, Any], cwd: str | None) -> str | None:
    kind = item.get("type")
    if kind == "message" and item.get("role") == "user":
        for block in item.get("content") or []:
            text = block.get("text", "")
            if text.startswith("<environment_context>"):
                found = re.search(r"<cwd>(.*?)</cwd>|Current working directory: (.*)", text)
                cwd = (found.group(1) or found.group(2)).strip() if found else cwd
    elif kind in ("function_call", "custom_tool_call"):
        args = json.loads(item["arguments"]) if kind == "function_call" else {}
        _call(scan, item["call_id"], item["name"], args, cwd)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        out = item["output"]
        scan.outputs.setdefault(item["call_id"], out if isinstance(out, str) else json.dumps(out))
    return cwd


def _call(scan: Scan, call_id: str, name: str, args: Any, cwd: str | None) -> None:
    if call_id in scan.calls:
        return  # a replayed copy (resume, or a legacy file holding an earlier history)
    scan.calls[call_id] = name
    command = _command(args) if name in SHELLS else None
    if command is not None:
        workdir = args.get("workdir") if isinstance(args, dict) else None
        scan.commands[call_id] = (command, workdir or cwd)


@pytest.fixture(scope="module")
def scan() -> Scan:
    return _scan()


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> tuple[duckdb.DuckDBPyConnection, dict]:
    db = tmp_path_factory.mktemp("real2codex") / "w.duckdb"
    doc = ingest(db, [CODEX]).document()
    return duckdb.connect(str(db), read_only=True), doc


def test_loads_without_error(warehouse: tuple[Any, dict], scan: Scan) -> None:
    _con, doc = warehouse
    assert doc["load_errors"] == 0, doc["errors"]
    assert doc["files_seen"] == scan.files == 173


def test_tool_calls_by_tool(warehouse: tuple[Any, dict], scan: Scan) -> None:
    _con, doc = warehouse
    expected = Counter(scan.calls.values())
    assert doc["tool_calls"] == len(scan.calls) == 3229
    assert doc["by_tool"] == dict(expected)
    assert expected["shell"] == 2468 and expected["container.exec"] == 2


def test_sessions_resumed_and_legacy(warehouse: tuple[Any, dict], scan: Scan) -> None:
    con, doc = warehouse
    assert doc["sessions"] == len(scan.sessions) == 173
    assert len(scan.resumed) == 1
    (resumed,) = scan.resumed
    # the resumed session keeps its 7 own calls; the 51 it replays stay with the parent
    own = [c for c in _calls_of_file(resumed) if c not in _calls_of_parent(resumed)]
    assert (
        con.execute(
            "select count(*) from fct_tool_calls where session_id = $s", {"s": resumed}
        ).fetchone()
        == (len(own),)
        == (7,)
    )
    legacy = con.execute(
        "select count(*) from fct_ingest_state where file_kind = 'legacy'"
    ).fetchone()
    assert legacy == (scan.legacy_files,) == (10,)


def _calls_of_file(session_id: str) -> list[str]:
    (path,) = CODEX.rglob(f"rollout-*{session_id}.jsonl")
    return _call_ids(path)


def _calls_of_parent(session_id: str) -> set[str]:
    (path,) = CODEX.rglob(f"rollout-*{session_id}.jsonl")
    metas = [json.loads(x) for x in path.read_text().splitlines() if '"session_meta"' in x[:80]]
    (parent_path,) = CODEX.rglob(f"rollout-*{metas[1]['payload']['id']}.jsonl")
    return set(_call_ids(parent_path))


def _call_ids(path: Path) -> list[str]:
    ids = []
    for line in path.read_text().splitlines():
        payload = json.loads(line).get("payload", {})
        if payload.get("type") in ("function_call", "custom_tool_call"):
            ids.append(payload["call_id"])
    return ids


# --- harness failures --------------------------------------------------------------------

# written apart from transcripts/codex.py's table, from the outputs seen in the corpus
_INTERRUPTED = ("aborted",)
_REJECTED = ("exec command rejected", "patch rejected")
_ERRORS = (
    "failed in sandbox", "execution error: ", "apply_patch verification failed",
    "error: ", "failed to parse function arguments", "unsupported call: ",
    "exec_command failed: ", "write_stdin failed: ",
)  # fmt: skip


def _exit_code_of(output: str) -> int | None:
    try:
        doc = json.loads(output)
    except ValueError:
        doc = None
    if isinstance(doc, dict) and "output" in doc:
        code = (doc.get("metadata") or {}).get("exit_code")
        return code if isinstance(code, int) else None
    found = re.search(r"^(?:Process exited with code|Exit code:) (-?\d+)$", output[:500], re.M)
    return int(found.group(1)) if found else None


def _body(output: str) -> str:
    try:
        doc = json.loads(output)
    except ValueError:
        return output
    return doc["output"] if isinstance(doc, dict) and isinstance(doc.get("output"), str) else output


def _failure_kind(output: str) -> str | None:
    if _exit_code_of(output) is not None:
        return None
    body = _body(output).lstrip()
    for kind, prefixes in (
        ("interrupted", _INTERRUPTED), ("rejected", _REJECTED), ("error", _ERRORS)
    ):  # fmt: skip
        if body.startswith(prefixes):
            return kind
    return None


def test_harness_failures_by_kind(warehouse: tuple[Any, dict], scan: Scan) -> None:
    con, _doc = warehouse
    no_exit_code = {
        c for c, output in scan.outputs.items() if c in scan.calls and _exit_code_of(output) is None
    }
    expected = Counter(
        kind for c in no_exit_code if (kind := _failure_kind(scan.outputs[c])) is not None
    )
    flags = con.execute(
        "select tool_use_id, is_error, is_rejected, is_interrupt, exit_code from fct_tool_calls"
    ).fetchall()
    got = Counter(
        "interrupted" if interrupt else "rejected" if rejected else "error"
        for c, error, rejected, interrupt, _code in flags
        if c in no_exit_code and error
    )
    assert got == expected
    assert expected == {"error": 220, "rejected": 13}
    # a sandbox failure that quotes the command's exit code keeps it
    embedded = {
        c: int(m.group(1))
        for c in no_exit_code
        if (m := re.search(r"exit[ _]code: (-?\d+)", _body(scan.outputs[c])[:2000]))
        and _failure_kind(scan.outputs[c]) == "error"
    }
    assert {c: code for c, _e, _r, _i, code in flags if c in embedded} == embedded
    assert len(embedded) == 89


# --- reads and delivered ranges ----------------------------------------------------------

_SED = re.compile(r"sed -n '?(\d+),(\d+)p'? ([\w./-]+)")
_HEAD = re.compile(r"head -n ?(\d+) ([\w./-]+)")
_CAT = re.compile(r"cat ([\w./-]+)")


def _simple_read(command: str, cwd: str | None) -> tuple[str, int, int | None] | None:
    """(path, first line, last line) of a one-command sed/head/cat read, else None."""
    if cwd is None or not cwd.startswith("/"):
        return None
    for pattern, shape in ((_SED, "sed"), (_HEAD, "head"), (_CAT, "cat")):
        found = pattern.fullmatch(command.strip())
        if found is None:
            continue
        name = found.groups()[-1]
        path = name if name.startswith("/") else f"{cwd.rstrip('/')}/{name}"
        path = re.sub(r"/\./", "/", path)
        if "/.." in path:
            return None
        if shape == "sed":
            return path, int(found.group(1)), int(found.group(2))
        if shape == "head":
            return path, 1, int(found.group(1))
        return path, 1, None
    return None


# Codex cuts a long output in the middle; the model saw a head part, the marker, a tail part.
# The delivered range is the head part (the tail part goes to tail_part_lines).
_CUT = re.compile(r"\[\.\.\. omitted \d+ of \d+ lines[^\]]*\]|…\d+ (?:tokens|chars) truncated…")


def _delivered(start: int, end: int | None, output: str) -> tuple[int, int] | None:
    body = _body(output)
    head, sep, rest = body.partition("Output:\n")
    body = rest if sep else body
    cut = _CUT.search(body)
    if cut is not None:
        body = body[: cut.start()].rstrip("\n")
    lines = len(body.splitlines())
    if lines == 0:
        return None
    last = start + lines - 1
    return start, last if end is None else min(end, last)


def test_simple_reads_and_their_delivered_ranges(warehouse: tuple[Any, dict], scan: Scan) -> None:
    con, _doc = warehouse
    expected = {}
    for call_id, (command, cwd) in scan.commands.items():
        read = _simple_read(command, cwd)
        output = scan.outputs.get(call_id)
        if read is None or output is None:
            continue
        path, start, end = read
        failed = _failure_kind(output) is not None or "No such file or directory" in output
        delivered = None if failed else _delivered(start, end, output)
        expected[call_id] = (path, start, end, delivered)
    got = {
        call_id: (path, start, end, None if d_from is None else (d_from, d_to))
        for call_id, path, start, end, d_from, d_to in con.execute(
            "select tool_use_id, path, range_start, range_end, delivered_from, delivered_to"
            " from fct_file_reads where tool_use_id in (select unnest($ids))",
            {"ids": list(expected)},
        ).fetchall()
    }
    assert len(expected) == 559
    assert got == expected
    assert set(got) == set(expected)


def test_every_reader_command_with_a_known_cwd_is_a_read(
    warehouse: tuple[Any, dict], scan: Scan
) -> None:
    con, _doc = warehouse
    read_calls = {r[0] for r in con.execute("select tool_use_id from raw_file_reads").fetchall()}
    readers = {c: cwd for c, (cmd, cwd) in scan.commands.items() if _looks_like_read(cmd)}
    known = [c for c, cwd in readers.items() if cwd]
    windows = [c for c in known if re.match(r"[A-Za-z]:\\", readers[c] or "")]
    assert (len(readers), len(known), len(windows)) == (862, 660, 7)
    assert [c for c in known if c not in read_calls] == []
    # 202 reader commands run in sessions that never state their cwd (no session_meta cwd,
    # no environment context, no workdir): their relative paths are unknown (shell.reads)
    unknown = [c for c, cwd in readers.items() if not cwd]
    assert len(unknown) == 202
    assert all(c not in read_calls for c in unknown if not _has_absolute_path(c, scan))


def _has_absolute_path(call_id: str, scan: Scan) -> bool:
    return " /" in scan.commands[call_id][0]


def _looks_like_read(command: str) -> bool:
    """The command's first program is a reader given a file, its output not redirected."""
    stage = re.split(r"\|\||&&|;|\n", command)[0].split("|")[0]
    if re.search(r"(?<![0-9&])>|<<", stage):
        return False  # cat > file, cat <<EOF: a write
    words = stage.split()
    readers = ("cat", "head", "tail", "sed", "nl", "Get-Content", "gc", "type")
    return len(words) >= 2 and words[0] in readers and not words[-1].startswith(("-", "'"))
