"""Retro-collection: mine past failures (transcripts and git history) into mechanism
clusters for the judge. Collects and groups only; never writes into ``LESSONS/``.

    con = warehouse.connect(db, read_only=True)
    result = collect(con, repos=[Path("~/src/app")], since=None, bases=[])
    write_retro(result, Path("reports/retro/2026-11-30"))
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lessons_analytics.engine import duckdb
from lessons_analytics.gitrun import GitError
from lessons_analytics.metrics import query
from lessons_analytics.retro import cluster, detect
from lessons_analytics.retro.git import git_signals
from lessons_analytics.retro.model import KINDS, SIGNAL_KEYS, Cluster, RetroResult, Signal
from lessons_analytics.retro.patterns import Patterns, load_patterns
from lessons_analytics.retro.write import RetroOutputError, digest_text, write_retro

__all__ = [
    "KINDS",
    "SIGNAL_KEYS",
    "Cluster",
    "Patterns",
    "RetroOutputError",
    "RetroResult",
    "Signal",
    "collect",
    "digest_text",
    "load_patterns",
    "transcript_signals",
    "write_retro",
]


def collect(
    con: duckdb.DuckDBPyConnection,
    repos: Iterable[Path] = (),
    since: datetime | None = None,
    bases: Iterable[str | Path] = (),
    patterns: Patterns | None = None,
) -> RetroResult:
    """Every signal of the warehouse (sessions of ``bases``, or all) and of the git history
    of the bases' repositories plus ``repos``, since ``since``, grouped into clusters."""
    pats = patterns or load_patterns()
    base_list = [str(b) for b in bases]
    params = {"since": since, "bases": base_list or None}
    signals = transcript_signals(con, pats, params)
    scope = query(con, "retro_scope", bases=params["bases"]).to_dicts()
    session_bases, repo_bases = _links(scope)
    roots = _repos(scope, repos)
    warnings = []
    for repo in roots:
        try:
            signals += git_signals(repo, since, pats)
        except GitError as exc:
            warnings.append(str(exc))
    lessons = [
        cluster.Lesson(
            r["base_path"], r["lesson_id"], r["status"], list(r["triggers"] or []), r["target"]
        )
        for r in query(con, "retro_lessons", bases=params["bases"]).to_dicts()
    ]
    common = cluster.common_words(query(con, "retro_texts", **params).to_dicts(), pats)
    clusters = cluster.build(signals, lessons, session_bases, repo_bases, base_list, common)
    return RetroResult(
        generated_at=datetime.now(UTC),
        since=since,
        bases=base_list,
        repos=[str(r) for r in roots],
        signals=[s for c in clusters for s in c.signals],
        clusters=clusters,
        warnings=warnings,
    )


def transcript_signals(
    con: duckdb.DuckDBPyConnection, pats: Patterns, params: Mapping[str, object]
) -> list[Signal]:
    texts = query(con, "retro_texts", **params).to_dicts()
    calls = query(con, "retro_tool_calls", **params).to_dicts()
    spawns = query(con, "retro_spawns", **params).to_dicts()
    turns = detect.Turns(texts, pats)
    return [
        *detect.corrections(texts, pats, calls),
        *detect.interrupts(texts, calls, turns, pats),
        *detect.rejections(calls, turns, pats),
        *detect.repeated_failures(calls, pats),
        *detect.gate_rejections(spawns, pats),
    ]


def _links(scope: list[dict[str, Any]]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    sessions: dict[str, list[str]] = defaultdict(list)
    repos: dict[str, list[str]] = defaultdict(list)
    for row in scope:
        if row["session_id"]:
            sessions[row["session_id"]].append(row["base_path"])
        root = str(Path(row["repo_root"]).resolve()) if row["repo_root"] else None
        if root and row["base_path"] not in repos[root]:
            repos[root].append(row["base_path"])
    return dict(sessions), dict(repos)


def _repos(scope: list[dict[str, Any]], extra: Iterable[Path]) -> list[Path]:
    found = {Path(r["repo_root"]).resolve() for r in scope if r["repo_root"]}
    found |= {Path(p).expanduser().resolve() for p in extra}
    return sorted(found)
