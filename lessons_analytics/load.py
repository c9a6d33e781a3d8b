"""Transcript files into the raw tables, incrementally.

Each file's ingest state (size, mtime, bytes and lines consumed, a hash of its head) says what
was already loaded: an unchanged file is not opened, a grown file is read from where it
stopped, a rewritten file replaces its rows. Only complete lines are consumed, so a
half-written last line waits for the next run. A bad line is counted with ``file:line`` and
the rest of the file still loads.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import orjson

from lessons_analytics.schema import BadValue, Batch, FileRow, FileState, UnknownColumn
from lessons_analytics.sources import SourceFile as SourceFile
from lessons_analytics.sources import classify as classify
from lessons_analytics.sources import discover as discover
from lessons_analytics.transcripts import JsonObject, TranscriptParser
from lessons_analytics.transcripts.claude import ClaudeFileParser, parse_meta
from lessons_analytics.transcripts.codex import NOT_A_ROLLOUT, CodexFileParser, LegacyRolloutParser

_HEAD_BYTES = 4096
# the session id a rollout's name ends with (``rollout-2026-01-05T09-00-00-<uuid>.jsonl``)
_ROLLOUT_ID = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl?$"
)
_BOM = b"\xef\xbb\xbf"


@dataclass
class LoadOutcome:
    """What one pass over the sources did; ``rewritten`` files get their old rows deleted."""

    files_seen: int = 0
    files_loaded: int = 0
    lines_loaded: int = 0
    rewritten: list[int] = field(default_factory=list)
    states: list[FileRow] = field(default_factory=list)


def file_id_of(path: str) -> int:
    digest = hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def load_files(
    sources: list[SourceFile],
    states: dict[str, FileState],
    batch: Batch,
    loaded_at: str,
    progress: Callable[[int], None] | None = None,
) -> LoadOutcome:
    outcome = LoadOutcome(files_seen=sum(source.kind != "folder" for source in sources))
    for source in sources:
        _load_one(source, states.get(source.path), batch, loaded_at, outcome)
        if progress is not None:
            progress(1)
    return outcome


def _load_one(
    source: SourceFile,
    state: FileState | None,
    batch: Batch,
    loaded_at: str,
    outcome: LoadOutcome,
) -> None:
    file_id = state.file_id if state else file_id_of(source.path)
    if source.problem is not None:
        _unreadable(batch, file_id, source.path, source.problem, state, loaded_at, outcome)
        return
    try:
        info = os.stat(source.path)
    except OSError as exc:
        _unreadable(batch, file_id, source.path, f"unreadable: {exc}", state, loaded_at, outcome)
        return
    if state and state.size_bytes == info.st_size and state.mtime_ns == info.st_mtime_ns:
        return
    try:
        start, line_no, context, data, head = _read(source, state, info)
    except OSError as exc:
        _unreadable(batch, file_id, source.path, f"unreadable: {exc}", state, loaded_at, outcome)
        return
    except _NotRegular as exc:
        _unreadable(batch, file_id, source.path, str(exc), state, loaded_at, outcome)
        return
    if start == 0:
        # read from the top: drop the file's earlier rows and errors (a rewrite, or a file that
        # failed before it ever loaded), so nothing is counted twice
        outcome.rewritten.append(file_id)
    if source.kind == "meta":
        consumed, lines = _load_meta(source, file_id, data, batch, loaded_at)
    elif source.kind == "legacy":
        consumed, lines = _load_legacy(source, file_id, data, batch, loaded_at)
    else:
        consumed, lines = _load_lines(source, file_id, data, line_no, context, batch, loaded_at)
    end = start + consumed
    outcome.files_loaded += 1
    outcome.lines_loaded += lines
    outcome.states.append(
        {
            "file_id": file_id,
            "path": source.path,
            "runtime": source.runtime,
            "file_kind": source.kind,
            "size_bytes": info.st_size,
            "mtime_ns": info.st_mtime_ns,
            "consumed_bytes": end,
            "consumed_lines": line_no + lines,
            "head_hash": _hash(head[: min(end, _HEAD_BYTES)]),
            "context_json": orjson.dumps(context).decode(),
            "loaded_at": loaded_at,
        }
    )


class _NotRegular(Exception):
    """A FIFO, socket or device: opening or reading it could block or never end."""


_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a folder",
}


def _read(
    source: SourceFile, state: FileState | None, seen: os.stat_result
) -> tuple[int, int, JsonObject, bytes, bytes]:
    """(start offset, lines before it, parser context, new bytes, head bytes) of a regular
    file. Opened without blocking and read no further than the size just seen, so neither a
    FIFO nor a link to /dev/zero can hang or fill memory; a file still growing waits for the
    next run beyond that size."""
    if not stat.S_ISREG(seen.st_mode):
        kind = _KINDS.get(stat.S_IFMT(seen.st_mode), "a special file")
        raise _NotRegular(f"not a regular file: {kind}")
    fd = os.open(source.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd)
        if not stat.S_ISREG(size.st_mode):  # swapped since it was listed
            raise _NotRegular("not a regular file")
        limit = min(seen.st_size, size.st_size)
        start, line_no, context = _resume_point(handle, state, limit)
        if source.kind in ("meta", "legacy"):
            start, line_no, context = 0, 0, {}  # one JSON document: always re-read whole
        handle.seek(start)
        data = handle.read(max(limit - start, 0))
        if start == 0:
            head = data[:_HEAD_BYTES]  # read from the top: no second read for the head
        else:
            handle.seek(0)
            head = handle.read(min(_HEAD_BYTES, limit))
    return start, line_no, context, data, head


def _unreadable(
    batch: Batch,
    file_id: int,
    path: str,
    reason: str,
    state: FileState | None,
    loaded_at: str,
    outcome: LoadOutcome,
) -> None:
    # A file that never loaded has no rows but its previous "unreadable" error: replace it, so
    # re-runs do not pile up copies. A file that did load keeps its rows (staging de-duplicates
    # the repeated error).
    if state is None:
        outcome.rewritten.append(file_id)
    _error(batch, file_id, path, 0, reason, loaded_at)


def _resume_point(
    handle: BinaryIO, state: FileState | None, size: int
) -> tuple[int, int, JsonObject]:
    """(byte offset, lines already consumed, parser context) to continue from."""
    if state is None or size < state.consumed_bytes:
        return 0, 0, {}
    head = handle.read(min(state.consumed_bytes, _HEAD_BYTES))
    if _hash(head) != state.head_hash:
        return 0, 0, {}
    return state.consumed_bytes, state.consumed_lines, state.context


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class _Recheck(Exception):
    """A line failed while rows go unchecked: the file is parsed again, checked."""


def _load_lines(
    source: SourceFile,
    file_id: int,
    data: bytes,
    line_no: int,
    context: JsonObject,
    batch: Batch,
    loaded_at: str,
) -> tuple[int, int]:
    """Parse the complete lines of ``data``; returns (bytes consumed, lines consumed).

    With ``batch.checked`` off, lines are parsed with neither their rows checked nor a way
    back for each (no mark, no copy of the context per line): the first line that fails
    sends the whole file back to the top, parsed checked line by line, so that line is
    rejected exactly as it would have been."""
    if batch.checked:
        return _parse_lines(source, file_id, data, line_no, context, batch, loaded_at)
    mark = batch.mark()
    start = copy.deepcopy(context) if context else {}
    try:
        return _parse_lines(source, file_id, data, line_no, context, batch, loaded_at)
    except _Recheck:
        batch.rollback(mark)
        context.clear()
        context.update(start)
        with batch.checking():
            return _parse_lines(source, file_id, data, line_no, context, batch, loaded_at)


def _parse_lines(
    source: SourceFile,
    file_id: int,
    data: bytes,
    line_no: int,
    context: JsonObject,
    batch: Batch,
    loaded_at: str,
) -> tuple[int, int]:
    end = data.rfind(b"\n") + 1
    parser = _parser(source, file_id, batch, context)
    # unchecked, a line is parsed here, without a call per line, and any failure sends the
    # file back to be parsed checked (``_Recheck``); checked, it goes through ``_parse_line``
    line = None if batch.checked else parser.line
    loads = orjson.loads
    count = 0
    for count, raw in enumerate(_lines(data, end), start=1):
        number = line_no + count
        if raw.startswith(_BOM):
            raw = raw[len(_BOM) :]  # written by some Windows editors and tools; not JSON
        if not raw or raw.isspace():  # blank (as ``not raw.strip()``, without a copy)
            continue
        try:
            record = loads(raw)
        except orjson.JSONDecodeError as exc:
            _error(batch, file_id, source.path, number, _json_reason(raw, exc), loaded_at)
            continue
        if not isinstance(record, dict):
            _error(batch, file_id, source.path, number, "not a JSON object", loaded_at)
            continue
        if line is not None:
            try:
                line(number, record)
            except Exception as exc:  # noqa: BLE001 - parsed again, checked
                raise _Recheck from exc
            continue
        reason = _parse_line(parser, number, record, batch, context)
        if reason is not None:
            _error(batch, file_id, source.path, number, reason, loaded_at)
    return end, count


def _parse_line(
    parser: TranscriptParser, number: int, record: JsonObject, batch: Batch, context: JsonObject
) -> str | None:
    """Parse one line, rows checked, whole or not at all: on failure its rows are taken back
    out of every table and the parser's context (session, cwd) is restored. Returns why it
    failed. (Unchecked, ``_parse_lines`` parses a line itself and raises ``_Recheck``.)"""
    mark = batch.mark()
    saved = dict(context)
    try:
        parser.line(number, record)
    except UnknownColumn:
        raise  # a parser bug, whatever the line holds
    except Exception as exc:  # noqa: BLE001 - one odd line must never stop the run
        batch.rollback(mark)
        context.clear()
        context.update(saved)
        return _rejection(exc)
    return None


def _rejection(exc: Exception) -> str:
    """Why a line (or a one-document file) was taken back out."""
    return f"wrong type: {exc}" if isinstance(exc, BadValue) else f"unexpected shape: {exc!r}"


def _lines(data: bytes, end: int) -> Iterator[bytes]:
    """The lines of ``data[:end]`` (``end`` just past a newline), newlines left out: found
    with ``find`` (memchr), far cheaper on long lines than ``split``'s byte-by-byte loop."""
    start = 0
    while start < end:
        stop = data.find(b"\n", start, end)
        yield data[start:stop]
        start = stop + 1


def _parser(
    source: SourceFile, file_id: int, batch: Batch, context: JsonObject
) -> TranscriptParser:
    if source.runtime == "codex":
        session = _ROLLOUT_ID.search(os.path.basename(source.path))
        if session:
            context.setdefault("file_session_id", session.group(1).lower())
        return CodexFileParser(batch, file_id, context)
    name = os.path.basename(source.path)
    agent_hint = name[len("agent-") : -len(".jsonl")] if source.kind != "main" else None
    return ClaudeFileParser(batch, file_id, agent_hint, context)


def _load_meta(
    source: SourceFile, file_id: int, data: bytes, batch: Batch, loaded_at: str
) -> tuple[int, int]:
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    if not data.strip():
        return len(data), 0
    session_id = os.path.basename(os.path.dirname(os.path.dirname(source.path)))
    try:
        with batch.checking():  # the file is one row: its reason comes from the check
            parse_meta(batch, file_id, source.path, data, session_id)
    except (orjson.JSONDecodeError, ValueError) as exc:
        reason = _json_reason(data, exc) if isinstance(exc, orjson.JSONDecodeError) else str(exc)
        _error(batch, file_id, source.path, 1, reason, loaded_at)
    return len(data), 1


def _load_legacy(
    source: SourceFile, file_id: int, data: bytes, batch: Batch, loaded_at: str
) -> tuple[int, int]:
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    if not data.strip():
        return len(data), 0
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        _error(batch, file_id, source.path, 1, _json_reason(data, exc), loaded_at)
        return len(data), 1
    if not isinstance(document, dict):
        _error(batch, file_id, source.path, 1, _rejection(ValueError(NOT_A_ROLLOUT)), loaded_at)
        return len(data), 1
    parser = LegacyRolloutParser(batch, file_id)
    with batch.checking():  # one document, one line: nothing to save by checking it later
        reason = _parse_line(parser, 1, document, batch, {})
    if reason is not None:
        _error(batch, file_id, source.path, 1, reason, loaded_at)
    return len(data), parser.lines or 1


def _json_reason(raw: bytes, exc: Exception) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not UTF-8: byte {bad.start} ({raw[bad.start : bad.start + 1]!r})"
    return f"invalid JSON: {exc}"


def _error(batch: Batch, file_id: int, path: str, line: int, reason: str, loaded_at: str) -> None:
    batch.load_errors.add(
        {
            "file_id": file_id,
            "path": path,
            "line_no": line,
            "reason": reason,
            "loaded_at": loaded_at,
        }
    )


def now_utc() -> str:
    return datetime.now(UTC).isoformat()


# ---------------------------------------------------------------- chunks, in parallel

CHUNK_BYTES = 32 << 20  # parse about this much per task: memory stays flat, work stays even
PARALLEL_MIN_BYTES = 64 << 20  # below this a pool costs more than it saves
# Below this many new bytes a run's rows go to DuckDB as bound lists, checked row by row as
# they are parsed, and Polars is never imported: its import (0.2 s) is most of what a run
# that adds a session or two pays for its rows. 2 MiB is some 2,000 transcript lines, a few
# thousand to some ten thousand rows (D's largest session is 0.1 MiB), where neither the
# row-by-row check nor binding each value costs as much as that import; above it the
# deferred check and Arrow are the cheaper way.
SMALL_BYTES = 2 << 20


@dataclass
class Chunk:
    # table -> polars DataFrame, the Parquet file a worker wrote, or (a small run) the
    # table's checked rows (``schema.Columns``), to be bound as lists
    frames: JsonObject
    outcome: LoadOutcome


def changed_sources(
    sources: list[SourceFile], states: dict[str, FileState]
) -> tuple[list[tuple[SourceFile, int]], int]:
    """The files that need reading, with their sizes; unchanged files are not opened."""
    pending = []
    total = 0
    for source in sources:
        state = states.get(source.path)
        if source.problem is not None:
            pending.append((source, 0))
            continue
        try:
            info = os.stat(source.path)
        except (OSError, ValueError):
            pending.append((source, 0))  # the loader records why it is unreadable
            continue
        if state and state.size_bytes == info.st_size and state.mtime_ns == info.st_mtime_ns:
            continue
        new_bytes = info.st_size - (state.consumed_bytes if state else 0)
        pending.append((source, max(new_bytes, 0)))
        total += max(new_bytes, 0)
    return pending, total


def _parse_chunk(args: tuple[list[SourceFile], dict[str, FileState], str]) -> Chunk:
    """Parse a chunk with its rows checked all at once when their frames are built, which
    costs less than row by row. A value that does not fit sends the chunk back to the
    top, parsed with every row checked as it is added, so that its line alone is rejected
    (with its reason) as it always was: hostile input costs a second parse, never a row."""
    sources, states, loaded_at = args
    try:
        batch = Batch(checked=False)
        # the parsers move the files' contexts on: a second parse starts from copies
        fresh = {path: replace(state, context=copy.deepcopy(state.context))
                 for path, state in states.items()}  # fmt: skip
        outcome = load_files(sources, fresh, batch, loaded_at)
        return Chunk(_frames(batch), outcome)
    except (BadValue, UnknownColumn):
        batch = Batch()
        outcome = load_files(sources, states, batch, loaded_at)
        return Chunk(_frames(batch), outcome)


def _parse_small(args: tuple[list[SourceFile], dict[str, FileState], str]) -> Chunk:
    """A small run's files, every row checked as it is added, kept as rows (no frame, no
    Polars): the rows and errors of ``_parse_chunk``, whose deferred check gives the
    verdict of this one."""
    sources, states, loaded_at = args
    batch = Batch()
    outcome = load_files(sources, states, batch, loaded_at)
    return Chunk({name: cols for name, cols in batch.tables.items() if len(cols)}, outcome)


def _frames(batch: Batch) -> JsonObject:
    instants: dict[str, int | None] = {}  # a line's rows in several tables share its time
    return {name: cols.frame(instants) for name, cols in batch.tables.items() if len(cols)}


def _parse_chunk_to_files(
    args: tuple[list[SourceFile], dict[str, FileState], str, str, int],
) -> Chunk:
    """A worker's chunk, its frames written as Parquet beside the warehouse: the parent then
    loads them all at once with DuckDB's parallel reader instead of row batches over a pipe."""
    sources, states, loaded_at, spool, number = args
    chunk = _parse_chunk((sources, states, loaded_at))
    files = {}
    for name, frame in chunk.frames.items():
        path = Path(spool) / f"{name}-{number:05d}.parquet"
        # uncompressed and without statistics: the file is read once, whole, by the parent
        # on the same disk, where compressing it (and reading it back) cost more CPU than
        # the fifth fewer bytes saved
        frame.write_parquet(path, compression="uncompressed", statistics=False)
        files[name] = path
    return Chunk(files, chunk.outcome)


def load_chunks(
    sources: list[SourceFile],
    states: dict[str, FileState],
    loaded_at: str,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    spool: Path | None = None,
) -> Iterator[Chunk]:
    """Parse the changed files chunk by chunk, yielding each chunk's frames so the caller
    writes them before the next arrives. Big loads go to worker processes, which write
    their frames as Parquet files into ``spool`` (a folder the caller removes)."""
    pending, total = changed_sources(sources, states)
    chunks: list[list[SourceFile]] = [[]]
    size = 0
    for source, new_bytes in pending:
        if size >= CHUNK_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append(source)
        size += new_bytes
    tasks = [(chunk, {s.path: states[s.path] for s in chunk if s.path in states}, loaded_at)
             for chunk in chunks if chunk]  # fmt: skip
    if total < SMALL_BYTES and len(tasks) == 1:
        chunk = _parse_small(tasks[0])
        if progress:
            progress(len(tasks[0][0]))
        yield chunk
        return
    workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    if workers < 2 or total < PARALLEL_MIN_BYTES or len(tasks) < 2:
        for task in tasks:
            chunk = _parse_chunk(task)
            if progress:
                progress(len(task[0]))
            yield chunk
        return
    import multiprocessing

    context = multiprocessing.get_context("spawn")  # the parent holds a DuckDB connection
    spooled = [(*task, str(spool), n) for n, task in enumerate(tasks)] if spool else None
    with context.Pool(workers) as pool:
        runs = (
            pool.imap(_parse_chunk_to_files, spooled) if spooled else pool.imap(_parse_chunk, tasks)
        )
        for chunk in runs:
            if progress:
                progress(chunk.outcome.files_seen)
            yield chunk
