"""The metrics of metrics.md as Polars frames and as the ``--json`` documents of cli.md.

Every function takes an open warehouse connection and ``Filters``; the SQL lives in
``queries/`` with its parameters bound, never formatted in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb
import polars as pl

from lessons_analytics import sqlfiles
from lessons_analytics.redact import redact_frame, redact_tree
from lessons_analytics.settings import Thresholds, query_params

_PARAM = re.compile(r"\$([a-z_][a-z0-9_]*)")


@dataclass(frozen=True)
class Filters:
    bases: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None

    def params(self) -> dict[str, Any]:
        return {
            "bases": list(self.bases) or None,
            "since": self.since,
            "until": self.until,
        }


def parse_when(text: str | None, *, end_of_day: bool = False) -> datetime | None:
    """``YYYY-MM-DD`` or an ISO timestamp, as UTC. A bare date given as an upper bound
    includes that whole day."""
    if text is None:
        return None
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    if end_of_day and len(text) == 10:
        value += timedelta(days=1)
    return value


def query(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> pl.DataFrame:
    """Run ``queries/<name>.sql`` binding the parameters it names (absent ones are null)."""
    sql = sqlfiles.load(name)
    return run_sql(con, sql, params)


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> pl.DataFrame:
    names = set(_PARAM.findall(sql))
    bound = {name: params.get(name) for name in names}
    frame: pl.DataFrame = con.sql(sql, params=bound).pl()
    return frame


def known_bases(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[str]:
    """The warehouse's bases that pass the filters, sorted."""
    return _bases(con, filters)


def _bases(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[str]:
    rows = con.execute("select base_path from dim_bases order by base_path").fetchall()
    known = [row[0] for row in rows]
    return [b for b in known if not filters.bases or b in filters.bases]


def _by_base(frame: pl.DataFrame) -> dict[str, dict[str, Any]]:
    return {row["base_path"]: row for row in frame.to_dicts()}


def _grouped(frame: pl.DataFrame) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in frame.to_dicts():
        base = row.pop("base_path")
        out.setdefault(base, []).append(row)
    return out


def envelope(command: str, bases: list[dict[str, Any]], key: str = "bases") -> dict[str, Any]:
    return {
        "schema": f"lessons-analytics/{command}/1",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        key: bases,
    }


HEADS_FIELDS = ("reads", "head_reads", "prefix_reads", "head_20_60", "blind_reads",
                "truncated_reads", "sessions_reading_index", "blind_sessions")  # fmt: skip


def heads_document(con: duckdb.DuckDBPyConnection, filters: Filters) -> dict[str, Any]:
    params = filters.params()
    totals = _by_base(query(con, "heads", **params))
    methods = _grouped(query(con, "heads_by_method", **params))
    weeks = _grouped(query(con, "heads_by_week", **params))
    out = []
    for base in _bases(con, filters):
        row = totals.get(base, {})
        entry: dict[str, Any] = {"base": base}
        entry.update({name: int(row.get(name) or 0) for name in HEADS_FIELDS})
        entry["by_method"] = {m["method"]: m["reads"] for m in methods.get(base, [])}
        entry["by_week"] = weeks.get(base, [])
        out.append(entry)
    return envelope("heads", out)


def coverage_document(con: duckdb.DuckDBPyConnection, filters: Filters) -> dict[str, Any]:
    params = filters.params()
    totals = _by_base(query(con, "coverage", **params))
    weeks = _grouped(query(con, "coverage_by_week", **params))
    out = []
    for base in _bases(con, filters):
        row = totals.get(base, {})
        out.append(
            {
                "base": base,
                "sessions_in_scope": int(row.get("sessions_in_scope") or 0),
                "sessions_reading_index": int(row.get("sessions_reading_index") or 0),
                "sessions_recalled": int(row.get("sessions_recalled") or 0),
                "coverage": row.get("coverage"),
                "index_read_share": row.get("index_read_share"),
                "by_week": [
                    {
                        k: w[k]
                        for k in (
                            "week",
                            "sessions_in_scope",
                            "sessions_reading_index",
                            "sessions_recalled",
                            "coverage",
                        )
                    }
                    for w in weeks.get(base, [])
                ],
            }
        )
    return envelope("coverage", out)


RECALL_KINDS = ("recalled", "index_only", "not_recalled", "unknown")


def hits_document(con: duckdb.DuckDBPyConnection, filters: Filters) -> dict[str, Any]:
    params = filters.params()
    totals = _by_base(query(con, "hits", **params))
    caught = _grouped(query(con, "hits_by_caught", **params))
    lessons = _grouped(query(con, "hits_by_lesson", **params))
    classes = _grouped(query(con, "hits_by_class", **params))
    listing = _grouped(query(con, "hits_list", **params))
    out = []
    for base in _bases(con, filters):
        row = totals.get(base, {})
        by_caught: dict[str, int] = {}
        cross: dict[str, dict[str, int]] = {}
        for c in caught.get(base, []):
            by_caught[c["caught"]] = by_caught.get(c["caught"], 0) + c["hits"]
            cross.setdefault(c["recall"], {})[c["caught"]] = c["hits"]
        out.append(
            {
                "base": base,
                "hits": int(row.get("hits") or 0),
                "independent_hits": int(row.get("independent_hits") or 0),
                "sessions_found": int(row.get("sessions_found") or 0),
                "by_recall": {k: int(row.get(k) or 0) for k in RECALL_KINDS},
                "by_caught": by_caught,
                "recall_by_caught": cross,
                "top3_share": row.get("top3_share"),
                "max_class": {"class": row.get("max_class"), "share": row.get("max_class_share")},
                "by_class": classes.get(base, []),
                "disagreements": [_hit_ref(h) for h in listing.get(base, []) if h["disagrees"]],
                "lessons": [
                    {"id": item.pop("lesson_id"), **item} for item in lessons.get(base, [])
                ],
            }
        )
    return envelope("hits", out)


def _hit_ref(hit: dict[str, Any]) -> dict[str, Any]:
    keys = ("lesson_id", "file_path", "line_no", "session_id", "recorded_recalled", "recall",
            "missed_at", "caught_by")  # fmt: skip
    return {k: hit[k] for k in keys}


def bodies_document(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    divisor: float,
    large_bytes: int,
) -> dict[str, Any]:
    """``divisor`` and ``large_bytes``: the settings thresholds.chars_per_token and
    thresholds.large_body_bytes (or the command's options); no default here."""
    params = {**filters.params(), "divisor": divisor, "large_bytes": large_bytes}
    totals = _by_base(query(con, "bodies", **params))
    lessons = _grouped(query(con, "bodies_by_lesson", **params))
    out = []
    for base in _bases(con, filters):
        row = totals.get(base, {})
        out.append(
            {
                "base": base,
                "reads": int(row.get("reads") or 0),
                "tokens": int(row.get("tokens") or 0),
                "large_reads": int(row.get("large_reads") or 0),
                "large_tokens": int(row.get("large_tokens") or 0),
                "large_share": row.get("large_share"),
                "lessons": [
                    {
                        "id": item["lesson_id"],
                        "reads": item["reads"],
                        "tokens": item["tokens"],
                        "body_bytes": item["body_bytes"],
                        "journal_share": item["journal_share"],
                        "large": item["is_large"],
                        "sessions": item["sessions"],
                    }
                    for item in lessons.get(base, [])
                ],
            }
        )
    return envelope("bodies", out)


def ritual_cost(
    con: duckdb.DuckDBPyConnection,
    pattern: str,
    filters: Filters,
    lesson: str | None,
    gap_cap_s: float,
) -> dict[str, Any]:
    """One ritual's time (metrics.md §5) as an element of the ``cost`` document;
    ``gap_cap_s`` is the setting thresholds.gap_cap_s (or ``cost --gap-cap``)."""
    params = {**filters.params(), "pattern": pattern, "gap_cap_s": gap_cap_s}
    calls = query(con, "cost_calls", **params)
    scope = query(con, "cost_scope", **params).to_dicts()[0]
    timed = calls.filter(pl.col("timed"))
    seconds = float(timed["duration_s"].sum() or 0.0)
    weeks = int(scope["weeks"] or 0)
    by_week = (
        calls.group_by("week")
        .agg(
            pl.len().alias("calls"),
            (pl.col("duration_s").filter(pl.col("timed")).sum() / 3600).alias("hours"),
        )
        .sort("week")
        .to_dicts()
    )
    active = float(scope["active_seconds"] or 0.0)
    return {
        "pattern": pattern,
        "lesson": lesson,
        "calls": calls.height,
        "untimed_calls": calls.height - timed.height,
        "total_hours": seconds / 3600,
        "hours_per_week": (seconds / 3600 / weeks) if weeks else None,
        "weeks": weeks,
        "by_week": by_week,
        "median_s": _quantile(timed, 0.5),
        "p90_s": _quantile(timed, 0.9),
        "share_of_active_time": (seconds / active) if active else None,
        "sessions_in_scope": int(scope["sessions"] or 0),
    }


def _quantile(frame: pl.DataFrame, q: float) -> float | None:
    if frame.is_empty():
        return None
    value = frame["duration_s"].quantile(q, interpolation="linear")
    return float(value) if value is not None else None


def lesson_rituals(
    con: duckdb.DuckDBPyConnection, filters: Filters, lesson: str | None = None
) -> list[dict[str, Any]]:
    """(base, lesson id, ritual regex) of lessons that declare a ritual."""
    sql = (
        "select base_path, lesson_id, ritual from dim_lessons where ritual is not null"
        " and ($lesson is null or lesson_id = $lesson)"
        " and ($bases is null or list_contains($bases, base_path)) order by base_path, lesson_id"
    )
    return run_sql(con, sql, {**filters.params(), "lesson": lesson}).to_dicts()


def cost_document(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    pattern: str | None = None,
    lesson: str | None = None,
    *,
    gap_cap_s: float,
) -> dict[str, Any]:
    rituals = []
    if pattern is not None:
        rituals.append(ritual_cost(con, pattern, filters, None, gap_cap_s))
    else:
        for item in lesson_rituals(con, filters, lesson):
            scoped = Filters((item["base_path"],), filters.since, filters.until)
            entry = ritual_cost(con, item["ritual"], scoped, item["lesson_id"], gap_cap_s)
            rituals.append({"base": item["base_path"], **entry})
    return envelope("cost", rituals, key="rituals")


def recalled_document(
    con: duckdb.DuckDBPyConnection,
    lesson: str,
    session: str,
    before: datetime | None,
    filters: Filters,
) -> dict[str, Any]:
    """Had ``lesson`` surfaced in ``session`` before ``before``, and the evidence."""
    found = con.execute("select count(*) from fct_sessions where session_id = ?", [session])
    row = found.fetchall()[0]
    evidence = query(
        con,
        "recalled",
        lesson=lesson,
        session=session,
        before=before,
        bases=filters.params()["bases"],
    ).to_dicts()
    evidence = redact_tree(evidence)  # it quotes transcripts
    kinds = {e["kind"] for e in evidence}
    if not row or not row[0]:
        status = "unknown"
    elif kinds & {"body", "quoted"}:
        status = "recalled"
    elif "index_row" in kinds:
        status = "index_only"
    else:
        status = "not_recalled"
    return {
        "schema": "lessons-analytics/recalled/1",
        "lesson": lesson,
        "session": session,
        "before": before.isoformat() if before else None,
        "status": status,
        "evidence": evidence,
    }


# ---------------------------------------------------------------- one frame per metric


def _frame(name: str) -> Any:
    def run(
        con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: Any
    ) -> pl.DataFrame:
        # the notebook's helpers: what they show leaves the warehouse, so it is redacted.
        # Parameters that are settings get their default unless given (`divisor=` ...)
        bound = {**query_params(Thresholds()), **(filters or Filters()).params(), **params}
        return redact_frame(query(con, name, **bound))

    run.__name__ = name
    run.__doc__ = (
        f"``queries/{name}.sql`` as a Polars frame (see the file's header), secrets redacted."
    )
    return run


heads = _frame("heads")
heads_by_week = _frame("heads_by_week")
heads_reads = _frame("heads_reads")
heads_histogram = _frame("heads_histogram")
coverage = _frame("coverage")
coverage_by_week = _frame("coverage_by_week")
hits = _frame("hits")
hits_list = _frame("hits_list")
hits_by_lesson = _frame("hits_by_lesson")
hits_by_caught = _frame("hits_by_caught")
hits_by_class = _frame("hits_by_class")
bodies = _frame("bodies")
bodies_by_lesson = _frame("bodies_by_lesson")
bodies_by_week = _frame("bodies_by_week")
cost_calls = _frame("cost_calls")
