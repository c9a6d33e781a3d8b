"""Every figure of the weekly report as plain data (what ``data.json`` holds).

The numbers come from the same ``metrics`` functions as the commands' ``--json``: for each
base, ``documents`` holds the ``heads``/``coverage``/``hits``/``bodies`` elements and the
``cost`` rituals of the report week exactly as those commands print them for
``--base BASE --since MONDAY --until SUNDAY``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl

from lessons_analytics import metrics
from lessons_analytics.engine import duckdb
from lessons_analytics.redact import redact
from lessons_analytics.report import actions, evidence, history
from lessons_analytics.report.effect_section import effect_hits, effect_rows, intervention_rows
from lessons_analytics.report.numbers import delta, share
from lessons_analytics.settings import Thresholds
from lessons_analytics.signs import warehouse_stats
from lessons_analytics.weeks import shift_week, week_bounds, week_of

TREND_WEEKS = 12
SCHEMA = "lessons-analytics/report/1"

# The queries asked once for every base of the report: metrics.PER_BASE.
PER_BASE = metrics.PER_BASE


@dataclass(frozen=True)
class Window:
    """The report week, the week before it and the trend window ending with it."""

    week: str
    since: datetime
    until: datetime
    previous: str
    trend_since: datetime
    weeks: tuple[str, ...]

    @classmethod
    def of(
        cls, week: str, trend_weeks: int = TREND_WEEKS, data_since: date | None = None
    ) -> Window:
        """``data_since``: the first day with data; the trend window does not start earlier."""
        since, until = week_bounds(week)
        first = shift_week(week, -(trend_weeks - 1))
        if data_since is not None and week_bounds(first)[0].date() <= data_since < since.date():
            first = week_of(data_since)
            trend_weeks = int((since - week_bounds(first)[0]).days // 7) + 1
        weeks = tuple(shift_week(first, i) for i in range(trend_weeks))
        return cls(week, since, until, shift_week(week, -1), week_bounds(first)[0], weeks)

    @property
    def previous_since(self) -> datetime:
        return self.since - timedelta(days=7)


def build_report_data(
    con: duckdb.DuckDBPyConnection,
    week: str,
    bases: list[str] | None = None,
    as_of: date | None = None,
    *,
    thresholds: Thresholds,
    generated_at: datetime | None = None,
) -> dict[str, Any]:
    """The whole report as one JSON-ready dict (datetimes still datetimes)."""
    first = metrics.query(con, "first_session")["first_started_at"][0]
    win = Window.of(week, data_since=first.astimezone(UTC).date() if first is not None else None)
    t = thresholds
    day = as_of or win.until.date()
    rows = metrics.query(con, "bases", bases=bases or None).to_dicts()
    names = display_names([r["project_dir"] or r["base_path"] for r in rows])
    paths = [r["base_path"] for r in rows]
    with (
        metrics.per_base(con, paths, PER_BASE),
        metrics.by_time(con, BY_TIME),
        _alongside(con, paths, win.until, t) as aside,
    ):
        _rituals_ahead(con, paths, win, t)
        sections = [
            _base_section(con, base, name, win, day, t, aside)
            for base, name in zip(paths, names, strict=True)
        ]
    return {
        "schema": SCHEMA,
        "week": win.week,
        "since": win.since.date().isoformat(),
        "until": (win.until - timedelta(days=1)).date().isoformat(),
        "previous_week": win.previous,
        "trend_weeks": list(win.weeks),
        "as_of": day.isoformat(),
        "generated_at": (generated_at or datetime.now(UTC)).isoformat(timespec="seconds"),
        "has_data": any(s["has_data"] for s in sections),
        "thresholds": {"direction_only_below": 15, **dict(t)},
        "bases": sections,
        "portfolio": _portfolio(con, sections),
    }


def _rituals_ahead(
    con: duckdb.DuckDBPyConnection, bases: list[str], win: Window, t: Thresholds
) -> None:
    """Start the ritual questions of the sections (``metrics.ahead``), in the order they
    ask them: per base, its rituals' cost of the week, their calls of all time (the week
    before, the trend's evidence and the effects' weeks are slices of them) and their cost
    over the trend. A third of the report's query time on D, asked on the other core while
    this thread reads and builds the rest."""
    for base in bases:
        week = metrics.Filters((base,), win.since, win.until)
        trend = metrics.Filters((base,), win.trend_since, win.until)
        metrics.cost_ahead(con, week, gap_cap_s=t["gap_cap_s"])
        for item in metrics.lesson_rituals(con, week):
            metrics.ahead(con, "cost_calls", **week.params(), pattern=item["ritual"])
        metrics.cost_ahead(con, trend, gap_cap_s=t["gap_cap_s"])


def display_names(dirs: list[str]) -> list[str]:
    """Project folders relative to their common parent (``atlas``, ``harbor/services/api``)."""
    if not dirs:
        return []
    if len(dirs) == 1:
        return [Path(dirs[0]).name or dirs[0]]
    common = os.path.commonpath(dirs)
    return [os.path.relpath(d, common) if d != common else Path(d).name for d in dirs]


def _only(doc: Mapping[str, Any], key: str = "bases") -> dict[str, Any]:
    items = doc[key]
    return items[0] if items else {}


# The queries whose week, trend and all-time answers are one answer sliced by time
# (``metrics.by_time``): cost_calls' $since and $until only keep the calls by called_at.
BY_TIME = {"cost_calls": "called_at"}


def _documents(
    con: duckdb.DuckDBPyConnection, filters: metrics.Filters, t: Thresholds
) -> dict[str, Any]:
    return {
        "heads": _only(metrics.heads_document(con, filters)),
        "coverage": _only(metrics.coverage_document(con, filters)),
        "hits": _only(metrics.hits_document(con, filters)),
        "bodies": _only(
            metrics.bodies_document(con, filters, t["chars_per_token"], int(t["large_body_bytes"]))
        ),
        "cost": metrics.cost_document(con, filters, gap_cap_s=t["gap_cap_s"])["rituals"],
    }


def _headline_documents(
    con: duckdb.DuckDBPyConnection, filters: metrics.Filters, t: Thresholds
) -> dict[str, Any]:
    """What ``headline`` reads of the documents of the week before: the totals rows of
    heads, coverage, hits and bodies (the documents' fields of the same names) and each
    ritual's ``total_hours`` as ``ritual_cost`` sums it. Not the lists and weeks the
    documents also hold, nor the rituals' active time: 0.3 of the report's queries."""
    params = filters.params()
    bodies = {**params, "divisor": t["chars_per_token"], "large_bytes": int(t["large_body_bytes"])}
    docs: dict[str, Any] = {
        name: _only({"bases": metrics.query_rows(con, name, **values)})
        for name, values in (("heads", params), ("coverage", params), ("hits", params),
                             ("bodies", bodies))
    }  # fmt: skip
    docs["hits"]["by_recall"] = {k: docs["hits"].get(k) for k in metrics.RECALL_KINDS}
    docs["cost"] = []
    for item in metrics.lesson_rituals(con, filters):
        scoped = metrics.Filters((item["base_path"],), filters.since, filters.until)
        calls = metrics.query(con, "cost_calls", **scoped.params(), pattern=item["ritual"])
        seconds = float(calls.filter(pl.col("timed"))["duration_s"].sum() or 0.0)
        docs["cost"].append({"total_hours": seconds / 3600})
    return docs


# per base: its lessons' hit sessions (effect_section.effect_hits) and its changes
# (effect_section.intervention_rows), up to the end of the week
Aside = dict[str, tuple[pl.DataFrame, list[dict[str, Any]]]]


def _aside(
    con: duckdb.DuckDBPyConnection, bases: list[str], until: datetime, t: Thresholds
) -> Aside:
    with metrics.per_base(con, bases, PER_BASE):
        hits = {base: effect_hits(con, base, until) for base in bases}
        return {base: (hits[base], intervention_rows(con, base, until, t)) for base in bases}


@contextmanager
def _alongside(
    con: duckdb.DuckDBPyConnection, bases: list[str], until: datetime, t: Thresholds
) -> Iterator[Callable[[], Aside]]:
    """``Aside`` of ``bases``, when asked. For the report's reader (read-only, inside
    ``remembering``: ``metrics.asks_ahead``) it is read on a cursor of its own thread while
    the caller reads the rest: DuckDB runs its two queries (effect_evidence,
    effect_interventions) without the GIL, on the other core. No other part of the report
    asks them, so the cursor's memo (its own: a memo is a connection's) repeats nothing of
    the caller's. Measured on D (in one process, 6 paired runs): the caller's thread 1.13
    -> 1.00 CPU s, the other thread 0.17, the process the same; a wall time of that much
    less on an idle core.
    Otherwise read on ``con`` when first asked, as before (a writer's cursor would not see
    what its open transaction wrote)."""
    if not (bases and metrics.asks_ahead(con)):
        yield cache(lambda: _aside(con, bases, until, t))
        return

    def read(other: duckdb.DuckDBPyConnection) -> Aside:
        with metrics.remembering(other):
            return _aside(other, bases, until, t)

    with ThreadPoolExecutor(max_workers=1) as pool:
        yield pool.submit(metrics.on_cursor, read, con).result


def _base_section(
    con: duckdb.DuckDBPyConnection,
    base: str,
    name: str,
    win: Window,
    as_of: date,
    t: Thresholds,
    aside: Callable[[], Aside],
) -> dict[str, Any]:
    week = metrics.Filters((base,), win.since, win.until)
    previous = metrics.Filters((base,), win.previous_since, win.since)
    trend = metrics.Filters((base,), win.trend_since, win.until)
    docs = _documents(con, week, t)
    before = _headline_documents(con, previous, t)
    events, from_git = history.lesson_events(con, base, win.until)
    layouts = history.relayouts(con, base, win.until)
    in_window = set(win.weeks)
    signs = _signs(con, base, as_of, t)
    effects = effect_rows(con, base, win.until, t, lambda: aside()[base][0])
    verdicts = {r["lesson_id"]: r["verdict"] for r in effects}
    return {
        "base": base,
        "name": name,
        "has_data": _has_data(docs),
        "first": actions.base_actions(con, trend, len(win.weeks), t, signs, verdicts),
        "effects": effects,
        "interventions": aside()[base][1],
        "intervention_window": int(t["intervention_window_sessions"]),
        "headline": headline(docs, before),
        "evidence": evidence.headline_evidence(con, week, t, docs["cost"]),
        "documents": docs,
        "trend": _trend(con, trend, win, t),
        "signs": signs,
        "ladder": ladder(con, base, win, t),
        "life": {
            "from_git": from_git,
            "by_week": history.life_by_week(events, list(win.weeks)),
            "events": [_clean_event(e) for e in events],
            "only_grows": _only_grows(events),
        },
        "annotations": [
            a for a in history.chart_annotations(events, layouts) if a["week"] in in_window
        ],
    }


def _has_data(docs: dict[str, Any]) -> bool:
    c, h, r, b = docs["coverage"], docs["hits"], docs["heads"], docs["bodies"]
    calls = sum(item["calls"] for item in docs["cost"])
    return bool(
        c.get("sessions_in_scope") or h.get("hits") or r.get("reads") or b.get("reads") or calls
    )


def _clean_event(event: dict[str, Any]) -> dict[str, Any]:
    out = dict(event)
    for key in ("where", "reason"):
        if out.get(key):
            out[key] = redact(out[key])
    return out


def _only_grows(events: list[dict[str, Any]]) -> bool:
    shrinks = {"retired", "deferred", "demoted"}
    return bool(events) and not any(e["kind"] in shrinks for e in events)


HEADLINES: tuple[tuple[str, str, str, str, str], ...] = (
    # key, label, document, numerator, denominator ("" for a plain count)
    (
        "coverage",
        "recall coverage (sessions)",
        "coverage",
        "sessions_recalled",
        "sessions_in_scope",
    ),
    (
        "index_read",
        "sessions reading the index",
        "coverage",
        "sessions_reading_index",
        "sessions_in_scope",
    ),
    (
        "blind_sessions",
        "blind sessions (saw no Active row)",
        "heads",
        "blind_sessions",
        "sessions_reading_index",
    ),
    ("head_20_60", "index reads by head -20…60", "heads", "head_20_60", "reads"),
    ("hits", "hits", "hits", "hits", ""),
    ("hits_recalled", "hits while recalled", "hits", "recalled", "hits"),
    ("hits_not_recalled", "hits not recalled", "hits", "not_recalled", "hits"),
    ("body_tokens", "body-read tokens", "bodies", "tokens", ""),
    ("large_body_reads", "body reads of large bodies", "bodies", "large_reads", "reads"),
)


def _field(doc: dict[str, Any], name: str) -> int:
    if name in ("recalled", "not_recalled", "index_only", "unknown"):
        return int(doc.get("by_recall", {}).get(name) or 0)
    return int(doc.get(name) or 0)


def headline(docs: dict[str, Any], before: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline numbers of a base with their week-over-week deltas."""
    out = []
    for key, label, doc, num, den in HEADLINES:
        if den:
            now, then = (share(_field(d[doc], num), _field(d[doc], den)) for d in (docs, before))
            item = {
                "key": key,
                "label": label,
                "kind": "share",
                **now,
                **delta(now["share"], then["share"], is_share=True),
            }
            item["previous_count"], item["previous_total"] = then["count"], then["total"]
        else:
            value, prev = _field(docs[doc], num), _field(before[doc], num)
            item = {
                "key": key,
                "label": label,
                "kind": "count",
                "value": value,
                **delta(value, prev, is_share=False),
            }
        out.append(item)
    hours = sum(r["total_hours"] for r in docs["cost"])
    prev_hours = sum(r["total_hours"] for r in before["cost"])
    out.append(
        {
            "key": "ritual_hours",
            "label": "ritual hours",
            "kind": "hours",
            "value": hours,
            "calls": sum(r["calls"] for r in docs["cost"]),
            **delta(hours, prev_hours, is_share=False),
        }
    )
    return out


def _rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return frame.drop("base_path", strict=False).to_dicts()


def _trend(
    con: duckdb.DuckDBPyConnection, filters: metrics.Filters, win: Window, t: Thresholds
) -> dict[str, Any]:
    hits = metrics.hits_list(con, filters)
    by_week = (
        hits.group_by("week", "recall").agg(pl.len().alias("hits")).sort("week", "recall")
        if hits.height
        else pl.DataFrame(schema={"week": pl.Utf8, "recall": pl.Utf8, "hits": pl.UInt32})
    )
    caught = metrics.hits_by_caught(con, filters)
    return {
        "coverage_by_week": _rows(metrics.coverage_by_week(con, filters)),
        "heads_by_week": _rows(metrics.heads_by_week(con, filters)),
        "hits_by_week": by_week.to_dicts(),
        "hits_by_caught": _rows(caught),
        "heads_histogram": _rows(metrics.heads_histogram(con, filters)),
        "active_heading_line": _active_line(con, filters.bases[0], win.until),
        "bodies_by_week": _rows(
            metrics.bodies_by_week(con, filters, divisor=t["chars_per_token"])
            .group_by("week")
            .agg(pl.col("reads").sum(), pl.col("tokens").sum())
            .sort("week")
        ),
        "rituals": metrics.cost_document(con, filters, gap_cap_s=t["gap_cap_s"])["rituals"],
    }


def _active_line(con: duckdb.DuckDBPyConnection, base: str, until: datetime) -> int | None:
    frame = metrics.query(con, "report_index_versions", bases=[base], until=until)
    if frame.is_empty():
        frame = metrics.query(con, "index_versions", bases=[base])
    values = frame["active_heading_line"].to_list() if frame.height else []
    return values[-1] if values else None


def _signs(con: duckdb.DuckDBPyConnection, base: str, as_of: date, t: Thresholds) -> dict[str, Any]:
    # from the warehouse alone: the report of a week does not depend on the files today
    return {"available": True, **warehouse_stats(con, base, as_of, t).as_dict()}


def ladder(
    con: duckdb.DuckDBPyConnection, base: str, win: Window, t: Thresholds
) -> list[dict[str, Any]]:
    """Lessons that keep failing although recalled (hits up to the end of the week), the
    most recalled failures first: prose is not holding, they need structure."""
    upto = metrics.Filters((base,), None, win.until)
    per_lesson = metrics.hits_by_lesson(con, upto).to_dicts()
    rungs = [r for r in per_lesson if r["recalled"] >= t["recalled_but_failed_hits"]]
    if not rungs:
        return []
    listing = metrics.hits_list(con, upto)
    lessons = {r["lesson_id"]: r for r in metrics.query(con, "lessons", bases=[base]).to_dicts()}
    out = []
    for row in sorted(rungs, key=lambda r: (-r["recalled"], -r["hits"], r["lesson_id"])):
        lid = row["lesson_id"]
        info = lessons.get(lid, {})
        hits = listing.filter(pl.col("lesson_id") == lid).sort("week", "line_no")
        known = row["hits"] - row["unknown"]
        out.append(
            {
                "id": lid,
                "status": info.get("status"),
                "class": info.get("lesson_class"),
                "hits": row["hits"],
                "recalled": row["recalled"],
                "not_recalled": row["not_recalled"],
                "index_only": row["index_only"],
                "unknown": row["unknown"],
                "recalled_share": share(row["recalled"], known),
                "this_week_recalled": hits.filter(
                    (pl.col("week") == win.week) & (pl.col("recall") == "recalled")
                ).height,
                "rule": redact(info.get("rule") or ""),
                "target": redact(info.get("target") or ""),
                "timeline": [
                    {
                        "week": h["week"],
                        "recall": h["recall"],
                        "caught_by": h["caught_by"],
                        "what": redact(h["what"] or ""),
                    }
                    for h in hits.to_dicts()
                ],
            }
        )
    return out


def _portfolio(con: duckdb.DuckDBPyConnection, sections: list[dict[str, Any]]) -> dict[str, Any]:
    rows = []
    for s in sections:
        head = {h["key"]: h for h in s["headline"]}
        events = s["life"]["events"]
        rows.append(
            {
                "base": s["base"],
                "name": s["name"],
                "has_data": s["has_data"],
                "coverage": {
                    k: head["coverage"][k]
                    for k in ("count", "total", "share", "ci95", "direction_only")
                },
                "hits": head["hits"]["value"],
                "hits_recalled": {
                    k: head["hits_recalled"][k]
                    for k in ("count", "total", "share", "ci95", "direction_only")
                },
                "body_tokens": head["body_tokens"]["value"],
                "ritual_hours": head["ritual_hours"]["value"],
                "signs_fired": [g["name"] for g in s["signs"]["signs"] if g["fired"]],
                "sleep_due": s["signs"]["sleep_due"],
                "ladder": [r["id"] for r in s["ladder"]],
                "added": sum(e["kind"] == "added" for e in events),
                "retired": sum(e["kind"] == "retired" for e in events),
                "only_grows": s["life"]["only_grows"],
            }
        )
    return {
        "rows": rows,
        **families(con, [s["base"] for s in sections], {s["base"]: s["name"] for s in sections}),
    }


def families(
    con: duckdb.DuckDBPyConnection, bases: list[str], names: dict[str, str]
) -> dict[str, Any]:
    """Lesson classes and triggers that several bases arrived at independently."""
    lessons = metrics.query(con, "lessons", bases=bases).to_dicts()
    return {
        "classes": _shared(
            lessons, lambda r: [r["lesson_class"]] if r["lesson_class"] else [], names
        ),
        "triggers": _shared(
            # redacted before lowercasing: a lowercased key no longer has its pattern's shape
            lessons,
            lambda r: [redact(x).strip().lower() for x in r["triggers"] or []],
            names,
        ),
    }


def _shared(
    lessons: list[dict[str, Any]], keys: Any, names: dict[str, str]
) -> list[dict[str, Any]]:
    found: dict[str, dict[str, list[str]]] = {}
    for row in lessons:
        for key in keys(row):
            found.setdefault(key, {}).setdefault(
                names.get(row["base_path"], row["base_path"]), []
            ).append(row["lesson_id"])
    shared = [
        {"name": k, "bases": [{"base": b, "lessons": ids} for b, ids in v.items()]}
        for k, v in found.items()
        if len(v) >= 2
    ]
    return sorted(shared, key=lambda f: (-len(f["bases"]), f["name"]))
