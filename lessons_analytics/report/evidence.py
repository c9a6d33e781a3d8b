"""The evidence behind the report's numbers: for each headline number and each action, the
sessions and ``transcript:line`` (or ``lesson file:line`` for a journal line) that make it.

An evidence list is ``{"count": n, "items": [...], "shown": k}``: ``count`` is the number
it proves (sessions, reads, hits or calls), ``items`` the first ``EVIDENCE_MAX`` of them in
time order, each ``{"session", "at", "ref", "note"}``. ``ref`` is ``path:line``; ``note``
says what the line is. The lists come from ``queries/report_evidence_*.sql`` and the same
filters as the number, so ``count`` equals the number shown.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import PurePath
from typing import TypedDict

import polars as pl

from lessons_analytics import metrics
from lessons_analytics.documents import RitualCost
from lessons_analytics.engine import duckdb
from lessons_analytics.redact import redact
from lessons_analytics.settings import Thresholds

EVIDENCE_MAX = 200  # items kept per list in data.json; the count stays exact


class EvidenceItem(TypedDict):
    """One session, read, hit or call behind a number."""

    session: str | None
    at: str | None
    ref: str | None
    note: str


class Evidence(TypedDict):
    """The items behind one number: ``count`` of them, the first ``shown`` kept."""

    count: int
    unit: str
    shown: int
    items: list[EvidenceItem]


def ref(path: str | None, line: int | None) -> str | None:
    return f"{path}:{line}" if path and line is not None else None


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def listing(items: list[EvidenceItem], unit: str, count: int | None = None) -> Evidence:
    """``unit``: what one item is (sessions, reads, hits, calls)."""
    kept = items[:EVIDENCE_MAX]
    n = len(items) if count is None else count
    return {"count": n, "unit": unit, "shown": len(kept), "items": kept}


def item(session: str | None, at: datetime | None, where: str | None, note: str) -> EvidenceItem:
    return {"session": session, "at": _when(at), "ref": where, "note": note}


# ---------------------------------------------------------------- sessions (coverage)


def sessions(con: duckdb.DuckDBPyConnection, filters: metrics.Filters) -> pl.DataFrame:
    return metrics.query(con, "report_evidence_sessions", **filters.params())


def recalled_sessions(frame: pl.DataFrame) -> Evidence:
    rows = frame.filter(pl.col("recalled_any")).to_dicts()
    return listing(
        [
            item(
                r["session_id"],
                r["started_at"],
                ref(r["recall_file"], r["recall_line"]),
                f"first recall: {r['recall_lesson']}",
            )
            for r in rows
        ],
        "sessions",
    )


def index_sessions(frame: pl.DataFrame) -> Evidence:
    rows = frame.filter(pl.col("read_index")).to_dicts()
    return listing(
        [
            item(
                r["session_id"],
                r["started_at"],
                ref(r["index_file"], r["index_line"]),
                "first index read",
            )  # fmt: skip
            for r in rows
        ],
        "sessions",
    )


# ---------------------------------------------------------------- index reads (heads)


def index_reads(con: duckdb.DuckDBPyConnection, filters: metrics.Filters) -> pl.DataFrame:
    # not redacted here: every string of the report is redacted once, as the document is
    # written (write_report), and redacting every row of the frame cost seconds on a
    # large warehouse where a few hundred items are shown
    frame = metrics.query(con, "heads_reads", **filters.params())
    return frame.sort("called_at", "session_id", "call_line")


def blind_sessions(reads: pl.DataFrame) -> Evidence:
    """Sessions whose every index read was blind (as ``heads``), with their first read."""
    if reads.is_empty():
        return listing([], "sessions")
    per_session = (
        reads.group_by("session_id", maintain_order=True)
        .agg(
            pl.col("is_blind").all().alias("blind"),
            pl.len().alias("reads"),
            pl.col("called_at").first(),
            pl.col("transcript_file").first(),
            pl.col("call_line").first(),
            pl.col("active_heading_line").first(),
            pl.col("line_to").first(),
        )
        .filter(pl.col("blind"))
    )
    return listing(
        [
            item(
                r["session_id"],
                r["called_at"],
                ref(r["transcript_file"], r["call_line"]),
                f"{r['reads']} index read(s), none reached an Active row"
                + (
                    f" (Active heading at line {r['active_heading_line']})"
                    if r["active_heading_line"]
                    else ""
                ),
            )  # fmt: skip
            for r in per_session.to_dicts()
        ],
        "sessions",
    )


def head_reads_20_60(reads: pl.DataFrame) -> Evidence:
    rows = reads.filter((pl.col("method") == "head") & pl.col("head_n").is_between(20, 60))
    return listing(
        [
            item(
                r["session_id"],
                r["called_at"],
                ref(r["transcript_file"], r["call_line"]),
                f"head -{r['head_n']}" + (" (blind)" if r["is_blind"] else ""),
            )  # fmt: skip
            for r in rows.to_dicts()
        ],
        "reads",
    )


# ---------------------------------------------------------------- hits


def hits(con: duckdb.DuckDBPyConnection, filters: metrics.Filters) -> pl.DataFrame:
    return metrics.query(con, "report_evidence_hits", **filters.params())


def hit_items(frame: pl.DataFrame) -> list[EvidenceItem]:
    """One item per hit, the first ``EVIDENCE_MAX`` in time order: the transcript line of
    the miss when known, else its journal line; the note names the lesson, the recall
    status and the other line."""
    out = []
    ordered = frame.sort(pl.col("missed_at"), "lesson_id", "line_no", nulls_last=True)
    for r in ordered.head(EVIDENCE_MAX).to_dicts():
        journal = ref(r["file_path"], r["line_no"])
        miss = ref(r["transcript_file"], r["miss_line"])
        note = f"{r['lesson_id']} {r['recall']}"
        if r["recall_file"]:
            same = r["recall_file"] == r["transcript_file"]
            where = "line" if same else PurePath(r["recall_file"]).name + ":"
            note += f", recalled at {where}{'' if not same else ' '}{r['recall_line']}"
        if miss:
            note += f"; journal {PurePath(r['file_path']).name}:{r['line_no']}"
        else:
            note += "; no transcript line"
        if r["what"]:
            note += f" — {redact(r['what'])}"
        out.append(item(r["session_id"], r["missed_at"], miss or journal, note))
    return out


def hit_list(frame: pl.DataFrame, recall: tuple[str, ...] | None = None) -> Evidence:
    part = frame if recall is None else frame.filter(pl.col("recall").is_in(recall))
    return listing(hit_items(part), "hits", part.height)


# ---------------------------------------------------------------- bodies and rituals


def body_reads(
    con: duckdb.DuckDBPyConnection, filters: metrics.Filters, t: Thresholds
) -> pl.DataFrame:
    return metrics.query(
        con,
        "report_evidence_body_reads",
        **filters.params(),
        divisor=t["chars_per_token"],
        large_bytes=int(t["large_body_bytes"]),
    )


def body_list(frame: pl.DataFrame, *, large_only: bool = False) -> Evidence:
    part = frame.filter(pl.col("is_large")) if large_only else frame
    return listing(
        [
            item(
                r["session_id"],
                r["called_at"],
                ref(r["transcript_file"], r["call_line"]),
                f"{r['lesson_id']} body, {r['tokens']:,} tokens",
            )  # fmt: skip
            for r in part.to_dicts()
        ],
        "reads",
    )


def ritual_calls(
    con: duckdb.DuckDBPyConnection, filters: metrics.Filters, pattern: str
) -> pl.DataFrame:
    # unredacted as index_reads; call_list redacts the commands it quotes
    return metrics.query(con, "cost_calls", **filters.params(), pattern=pattern)


def call_list(frame: pl.DataFrame, lesson: str | None = None) -> Evidence:
    """The calls of a ritual; ``lesson`` (the lessons declaring it) names it in the notes."""
    items = []
    for r in frame.head(EVIDENCE_MAX).to_dicts():  # the items kept: each redacts a command
        took = f"{r['duration_s']:.0f} s" if r["timed"] else "untimed"
        label = f"{lesson} ritual" if lesson else "ritual"
        items.append(
            item(
                r["session_id"],
                r["called_at"],
                ref(r["transcript_file"], r["call_line"]),
                f"{label}: {redact(r['command'] or '')} ({took})",
            )  # fmt: skip
        )
    return listing(items, "calls", frame.height)


def merge(*lists: Evidence) -> Evidence:
    """Several evidence lists as one (the ritual hours of all rituals), in time order."""
    items = sorted(
        (i for lst in lists for i in lst["items"]), key=lambda i: (i["at"] or "", i["ref"] or "")
    )
    return listing(items, lists[0]["unit"], sum(lst["count"] for lst in lists))


def headline_evidence(
    con: duckdb.DuckDBPyConnection,
    filters: metrics.Filters,
    t: Thresholds,
    rituals: list[RitualCost],
) -> dict[str, Evidence]:
    """The evidence of each headline number (``data.HEADLINES`` keys and ``ritual_hours``)
    over ``filters``: the sessions, reads, hits or calls it counts."""
    scope = sessions(con, filters)
    reads = index_reads(con, filters)
    found = hits(con, filters)
    bodies = body_reads(con, filters, t)
    calls = [call_list(ritual_calls(con, filters, r["pattern"]), r["lesson"]) for r in rituals]
    return {
        "coverage": recalled_sessions(scope),
        "index_read": index_sessions(scope),
        "blind_sessions": blind_sessions(reads),
        "head_20_60": head_reads_20_60(reads),
        "hits": hit_list(found),
        "hits_recalled": hit_list(found, ("recalled",)),
        "hits_not_recalled": hit_list(found, ("not_recalled",)),
        "body_tokens": body_list(bodies),
        "large_body_reads": body_list(bodies, large_only=True),
        "ritual_hours": merge(*calls) if calls else listing([], "calls"),
    }
