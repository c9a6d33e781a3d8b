"""Fuzz the loader with real transcripts broken the ways real files break.

Each case takes one real transcript from ../shared/corpora (read in place, never copied into
the repository), applies seeded damage — a truncation at a random byte, flipped bytes, a type
swap in a known field, a huge number, deep nesting, a byte-order mark, CRLF line ends — and
writes it under ``tmp_path`` in its runtime's on-disk shape. All cases go into one tree and
one ingest. Then:

- no exception escapes the run;
- every tool call of every line left intact (byte for byte) is loaded;
- load errors fall only on damaged lines;
- a second run loads nothing and changes no model.

Bounded for CI: ``LESSONS_FUZZ_CASES`` cases (default 40) from seed ``LESSONS_FUZZ_SEED``
(default 9). Run longer by hand, e.g. ``LESSONS_FUZZ_CASES=2000 pytest tests/test_fuzz.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics.ingestion import ingest
from tests.support.dbrows import rows as _rows

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CASES = int(os.environ.get("LESSONS_FUZZ_CASES", "40"))
SEED = int(os.environ.get("LESSONS_FUZZ_SEED", "9"))
MAX_SOURCE_BYTES = 300_000  # keeps the default run to a few seconds

pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(not CORPORA.is_dir(), reason="real corpora not present"),
]

# dotted paths of fields the parsers read (digits index lists)
KNOWN_FIELDS = [
    "sessionId", "uuid", "parentUuid", "timestamp", "cwd", "version", "agentId", "requestId",
    "isSidechain", "type", "message", "message.id", "message.model", "message.content",
    "message.usage.input_tokens", "message.usage.output_tokens",
    "message.usage.cache_read_input_tokens", "message.content.0.id", "message.content.0.name",
    "message.content.0.input", "message.content.0.input.offset", "message.content.0.input.limit",
    "message.content.0.input.command", "message.content.0.tool_use_id",
    "message.content.0.content", "message.content.0.is_error", "toolUseResult",
    "toolUseResult.agentId", "toolUseResult.file.startLine", "payload", "payload.id",
    "payload.cli_version", "payload.cwd", "payload.type", "payload.call_id", "payload.name",
    "payload.arguments", "payload.output", "payload.content", "payload.role", "payload.source",
]  # fmt: skip
HOSTILE_VALUES: list[Any] = [
    {"x": 1}, [1, "a"], None, "", "garbage", 12345, -1, 2**64, -(2**70), 1e20, 1e308, -1e30,
    True, False, 0.5, "2026-13-45T99:99:99Z", "\u0000", "\ufeff{", {"type": "tool_use"},
]  # fmt: skip


@dataclass
class Case:
    source: Path
    target: Path
    damaged: set[int] = field(default_factory=set)  # 1-based line numbers
    intact_calls: set[str] = field(default_factory=set)
    damage: list[str] = field(default_factory=list)


def _sources() -> list[Path]:
    found = [
        p
        for p in sorted(CORPORA.rglob("*.jsonl"))
        if 0 < p.stat().st_size <= MAX_SOURCE_BYTES and "licenses" not in p.parts
    ]
    return found


def _calls(record: Any) -> set[str]:
    """Tool call ids a line holds, read the plain way (Claude tool_use, Codex call items)."""
    if not isinstance(record, dict):
        return set()
    message = record.get("message")
    if record.get("type") == "assistant" and isinstance(message, dict):
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        return {
            b["id"]
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)
        }
    item = record.get("payload") if isinstance(record.get("payload"), dict) else record
    if item.get("type") in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = item.get("call_id") or item.get("id")
        return {call_id} if isinstance(call_id, str) else set()
    return set()


def _swap(rng: random.Random, record: Any) -> str | None:
    """Set one known field present in ``record`` to a hostile value; the path, or None."""
    present = [path for path in KNOWN_FIELDS if _has(record, path)]
    if not present:
        return None
    path = rng.choice(present)
    value = rng.choice(HOSTILE_VALUES)
    if rng.random() < 0.2:
        value = "__DEEP__"  # replaced by deep nesting once serialised
    node = record
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if key.isdigit() else node[key]
    last = keys[-1]
    node[int(last) if last.isdigit() else last] = value
    return path


def _has(record: Any, path: str) -> bool:
    node = record
    for key in path.split("."):
        if key.isdigit() and isinstance(node, list) and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return False
    return True


def _damage_line(rng: random.Random, raw: bytes, kinds: list[str]) -> bytes:
    kind = rng.choice(["flip", "swap", "swap", "swap", "cut"])
    if kind == "flip" and raw:
        data = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data))
            data[at] = rng.choice([b for b in range(256) if b != 0x0A])
        kinds.append("flip")
        return bytes(data)
    if kind == "cut" and len(raw) > 2:
        kinds.append("cut-line")
        return raw[: rng.randrange(1, len(raw))]
    record = json.loads(raw)
    path = _swap(rng, record)
    kinds.append(f"swap:{path}")
    text = json.dumps(record)
    depth = rng.choice([50, 600, 1100, 5000])
    return text.replace('"__DEEP__"', "[" * depth + "]" * depth).encode()


def _target(root: Path, number: int, source: Path) -> Path:
    if source.name.startswith("rollout-"):
        return root / "codex" / f"case-{number:04d}" / source.name
    # Claude: keep agent-*.jsonl / <session>.jsonl, and a 2.1.x subagents/ folder
    tail = source.parts[-3:] if source.parent.name == "subagents" else source.parts[-1:]
    return root / "claude" / f"case-{number:04d}" / Path(*tail)


def _make_case(rng: random.Random, root: Path, number: int, source: Path) -> Case:
    lines = source.read_bytes().split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    case = Case(source, _target(root, number, source))
    out: list[bytes] = []
    for n, raw in enumerate(lines, start=1):
        if raw.strip() and rng.random() < 0.15:
            try:
                out.append(_damage_line(rng, raw, case.damage))
            except (ValueError, RecursionError):
                out.append(raw[: len(raw) // 2])
            case.damaged.add(n)
            continue
        out.append(raw)
        if raw.strip():
            case.intact_calls |= _calls(json.loads(raw))
    eol = b"\r\n" if rng.random() < 0.15 else b"\n"
    body = eol.join(out) + eol + tail
    if rng.random() < 0.15:
        body = b"\xef\xbb\xbf" + body
        case.damage.append("bom")
    if eol == b"\r\n":
        case.damage.append("crlf")
    if rng.random() < 0.2 and out:
        # the file ends mid-line: what comes after the cut never happened
        cut = rng.randrange(len(body))
        body = body[:cut]
        case.damage.append(f"truncated@{cut}")
        whole = body.count(b"\n")
        case.damaged = {n for n in case.damaged if n <= whole}
        kept = [r for n, r in enumerate(out[:whole], 1) if r.strip() and n not in case.damaged]
        case.intact_calls = set().union(*(_calls(json.loads(raw)) for raw in kept))
    case.target.parent.mkdir(parents=True, exist_ok=True)
    case.target.write_bytes(body)
    return case


def _models(db: Path) -> dict[str, str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [
            r[0]
            for r in con.execute(
                "select table_name from duckdb_tables()"
                " where regexp_matches(table_name, '^(int|fct|dim)_') order by 1"
            ).fetchall()
        ]
        return {
            n: hashlib.blake2b(
                repr(con.execute(f"select * from {n} order by all").fetchall()).encode()
            ).hexdigest()
            for n in names
        }
    finally:
        con.close()


def test_damaged_real_transcripts_never_stop_a_run(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    sources = _sources()
    cases = [_make_case(rng, tmp_path / "tree", n, rng.choice(sources)) for n in range(CASES)]
    db = tmp_path / "w.duckdb"
    roots = [p for p in (tmp_path / "tree" / "claude", tmp_path / "tree" / "codex") if p.exists()]
    first = ingest(db, roots)  # no exception escapes
    assert first.files_seen == CASES

    loaded: dict[str, set[str]] = {}
    for path, tool_use_id in _rows(
        db,
        "select files.path, calls.tool_use_id from raw_tool_calls calls"
        " join raw_files files using (file_id) where calls.tool_use_id is not null",
    ):
        loaded.setdefault(path, set()).add(tool_use_id)
    errors: dict[str, set[int]] = {}
    for path, line in _rows(db, "select path, line_no from raw_load_errors"):
        errors.setdefault(path, set()).add(line)
    for case in cases:
        where = f"{case.source} -> {case.target} ({', '.join(case.damage)})"
        missing = case.intact_calls - loaded.get(str(case.target), set())
        assert not missing, f"{where}: intact calls not loaded: {sorted(missing)[:5]}"
        stray = errors.get(str(case.target), set()) - case.damaged
        assert not stray, f"{where}: errors on intact lines {sorted(stray)}"
    assert sum(len(c.damaged) for c in cases) > 0

    before = _models(db)
    again = ingest(db, roots)
    assert (again.changed, again.files_loaded, again.lines_loaded) == (False, 0, 0)
    assert _models(db) == before
