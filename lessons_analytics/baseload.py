"""The lesson-base load stage: which bases the transcripts' working directories stand in,
whether any changed since the last run, and their rows into the raw base tables.

A base is re-read whole when its fingerprint (its files and the repository HEAD) changed;
the cwd -> base links are rewritten whenever they change.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import orjson

from lessons_analytics import bases as base_reader
from lessons_analytics import warehouse
from lessons_analytics.schema import BASE_TABLES, base_frame


@dataclass(frozen=True)
class BaseRefresh:
    reloaded: bool  # a base changed: every base table was re-read
    links_changed: bool  # the cwd -> base links changed
    links_only_added: bool  # ... and only by links for new working directories


def refresh_bases(con: duckdb.DuckDBPyConnection, extra_bases: list[Path]) -> BaseRefresh:
    """Re-read the bases when any changed since the last run, and the cwd -> base links."""
    cwds = [
        row[0]
        for row in con.execute(
            "select distinct cwd from raw_events where cwd is not null"
        ).fetchall()
    ] + [
        row[0]
        for row in con.execute(
            "select distinct cwd from raw_tool_calls where cwd is not null"
        ).fetchall()
    ]
    links: dict[tuple[str, str], int] = {}
    for cwd in cwds:
        for depth, base in enumerate(base_reader.discover_bases(cwd)):
            links.setdefault((cwd, str(base)), depth)
    wanted = {base for _cwd, base in links}
    wanted |= {str(base_reader.resolve_base(path)) for path in extra_bases}
    fingerprints = {base: fingerprint(Path(base)) for base in sorted(wanted)}
    known = _known_fingerprints(con)
    cwd_rows = [{"cwd": c, "base_path": b, "depth": d} for (c, b), d in sorted(links.items())]
    old = {
        tuple(row)
        for row in con.execute("select cwd, base_path, depth from raw_cwd_bases").fetchall()
    }
    new = {(row["cwd"], row["base_path"], row["depth"]) for row in cwd_rows}
    if known == fingerprints:
        if old != new:
            warehouse.replace_table(con, "raw_cwd_bases", base_frame("raw_cwd_bases", cwd_rows))
        return BaseRefresh(False, old != new, old <= new)
    snapshots = [base_reader.load_base(Path(base)) for base in fingerprints]
    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in BASE_TABLES}
    for snapshot in snapshots:
        base_row = dict(snapshot.base)
        base_row["fingerprint"] = fingerprints[base_row["base_path"]]
        tables["raw_bases"].append(base_row)
        for name in (
            "lessons",
            "hits",
            "lesson_versions",
            "index_versions",
            "index_rows",
            "index_sections",
            "quarantine",
            "retired",
            "repo_changes",
        ):
            tables[f"raw_{name}"].extend(getattr(snapshot, name))
        for error in snapshot.errors:
            tables["raw_base_errors"].append({"base_path": base_row["base_path"], **error})
    for hit in tables["raw_hits"]:
        if isinstance(hit.get("extra"), dict):
            hit["extra"] = orjson.dumps(hit["extra"]).decode()
    tables["raw_cwd_bases"] = cwd_rows
    for name, rows in tables.items():
        warehouse.replace_table(con, name, base_frame(name, rows))
    return BaseRefresh(True, old != new, False)


def fingerprint(base: Path) -> str:
    """Changes whenever a file of the base or the repository HEAD changes. INDEX.md counts
    by its content without the sleep marker, so refreshing the marker is not a change."""
    digest = hashlib.blake2b(digest_size=16)
    # a warehouse written with other base columns re-reads its bases once
    digest.update(repr(sorted((t, list(c)) for t, c in BASE_TABLES.items())).encode())
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return "missing"
    for entry in entries:
        if entry.name == "INDEX.md":
            try:
                text = Path(entry.path).read_bytes()
            except OSError:
                text = b""
            kept = [
                line
                for line in text.splitlines()
                if not line.lstrip().startswith(b"<!-- sleep-due:")
            ]
            digest.update(b"INDEX.md:" + hashlib.blake2b(b"\n".join(kept)).digest())
            continue
        stat = entry.stat()
        digest.update(f"{entry.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    root = base_reader.repo_root_of(base)
    if root is not None:
        for ref in (root / ".git" / "HEAD", root / ".git" / "index"):
            with contextlib.suppress(OSError):
                digest.update(f"{ref}:{ref.stat().st_mtime_ns};".encode())
    return digest.hexdigest()


def _known_fingerprints(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    if not _table_rows(con, "raw_bases"):
        return {}
    return dict(con.execute("select base_path, fingerprint from raw_bases").fetchall())


def _table_rows(con: duckdb.DuckDBPyConnection, table: str) -> int:
    exists = con.execute(
        "select count(*) from information_schema.tables where table_name = ?", [table]
    ).fetchall()[0]
    if not exists[0]:
        return 0
    count = con.execute(f"select count(*) from {table}").fetchall()[0]
    return int(count[0])
