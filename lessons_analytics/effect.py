"""Does a lesson help? Its hit rate before and after it became active, recalled or not.

``lesson_effects`` reads the counts of ``queries/effect_lessons.sql`` (exposure, hits,
recall split; ``lesson_weeks`` the same per ISO week, from the same query) and adds the
statistics of ``proportions`` and one verdict per lesson. ``interventions`` (in
``interventions.py``, re-exported here) does the same for changes
to a base. Everything comes from the warehouse alone.

Rates are hits per exposed session (independent hits, see the query's header); a count of
hits above the sessions it is divided by (hits without a session) is capped at that
number for the statistics. ``diff`` is ``rate_after - rate_before`` (negative: fewer
failures) with its Newcombe interval; ``p_value`` is the one-sided Fisher test that the
rate fell; ``sessions_needed`` is the number of exposed sessions after activation a
halving of ``rate_before`` needs to be seen at ``effect_power`` (one-sided
``effect_alpha``). The recall split compares, after activation, the sessions where the
lesson was recalled before the miss with those where it was not (``recall_diff`` =
recalled minus unrecalled rate, ``recall_p_value`` one-sided: recalled is lower).

The verdict, first rule that holds:

1. ``costs more than it saves``: the lesson's ritual (session hours a week, as ``cost``
   measures it) or its body reads (tokens a week, as ``bodies``) exceed what the hits it
   avoids are worth (``hours_per_hit``, ``tokens_per_hit`` per avoided hit), even crediting
   it with the most favourable end of the interval: avoided hits a week =
   ``max(0, -diff_lo) * exposed_after / weeks_after``. Needs both periods. No size floor:
   a small cost that buys nothing still costs more than it saves.
2. ``helps``: at least ``sessions_needed`` exposed sessions after activation, the rate
   fell (``p_value < effect_alpha``) and the interval of the difference excludes 0.
3. ``retire candidate``: active now, no hit in the last ``retire_window_days`` days of
   data while at least ``retire_min_sessions`` exposed sessions happened in them.
4. ``not holding``: the evidence suffices (``sessions_needed`` sessions after activation,
   or no hit before activation to halve, so the after period speaks alone), at least
   ``recalled_but_failed_hits`` hits after activation came while the lesson was
   recalled, and recall does not lower the rate (``recall_p_value >= effect_alpha``):
   prose is not enough, build structure.
5. ``not surfaced``: the evidence suffices, at least ``never_recalled_hits`` hits after
   activation were not recalled and they are more than half of the split hits: fix its
   triggers or addressee.
6. ``insufficient evidence``, with ``sessions_still_needed`` when a number of sessions
   can settle it (else the reason says what is missing).
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast

from lessons_analytics import metrics
from lessons_analytics.documents import (
    EffectBase,
    EffectDocument,
    EffectEvidence,
    EffectTotals,
    Intervention,
    LessonEffect,
    LessonWeek,
)
from lessons_analytics.engine import duckdb
from lessons_analytics.interventions import intervention_rows, interventions
from lessons_analytics.metrics import Filters
from lessons_analytics.proportions import fisher_less, newcombe, sessions_for_halving, wilson
from lessons_analytics.redact import CleanJson
from lessons_analytics.settings import Thresholds

if TYPE_CHECKING:
    import polars as pl

# Polars is imported inside the functions that build frames: `stats` imports this module for
# the transcript signs, and a base read from its files (or a warehouse whose rituals have no
# call) needs no frame; importing Polars would be most of such a run.

__all__ = [
    "VERDICTS",
    "effect_document",
    "effect_evidence",
    "interventions",
    "lesson_costs",
    "lesson_effect_rows",
    "lesson_effects",
    "lesson_weeks",
    "verdict",
]

VERDICTS = ("helps", "not holding", "not surfaced", "costs more than it saves",
            "retire candidate", "insufficient evidence")  # fmt: skip


def _stat_columns() -> dict[str, Any]:
    import polars as pl

    return {
        "rate_before": pl.Float64, "rate_before_lo": pl.Float64, "rate_before_hi": pl.Float64,
        "rate_after": pl.Float64, "rate_after_lo": pl.Float64, "rate_after_hi": pl.Float64,
        "diff": pl.Float64, "diff_lo": pl.Float64, "diff_hi": pl.Float64, "p_value": pl.Float64,
        "sessions_needed": pl.Int64, "sessions_still_needed": pl.Int64,
        "recalled_rate": pl.Float64, "unrecalled_rate": pl.Float64,
        "recall_diff": pl.Float64, "recall_diff_lo": pl.Float64, "recall_diff_hi": pl.Float64,
        "recall_p_value": pl.Float64,
        "cost_hours_per_week": pl.Float64, "cost_tokens_per_week": pl.Float64,
        "avoided_hits_per_week_max": pl.Float64,
        "verdict": pl.String, "verdict_reason": pl.String,
    }  # fmt: skip


Costs = dict[tuple[str, str], tuple[float, float]]

# the week columns of queries/effect_lessons.sql and their names in ``lesson_weeks``
_WEEK_COLUMNS = {"week": "week", "week_period": "period",
                 "week_exposed_sessions": "exposed_sessions", "week_hits": "hits",
                 "week_hits_without_session": "hits_without_session"}  # fmt: skip


def lesson_effects(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    thresholds: Thresholds,
    costs: Costs | None = None,
) -> pl.DataFrame:
    """One row per (base_root, lesson_id): counts, statistics and verdict (module doc);
    ``costs``: ``lesson_costs`` of the same filters, when the caller has them already."""
    import polars as pl

    params = _lesson_params(filters, int(thresholds["retire_window_days"]))
    found = metrics.query(con, "effect_lessons", **_one_question(con, params))
    rows = _effect_rows(con, found.to_dicts(), filters, thresholds, costs)
    listed = {("base_root" if name == "base_path" else name): dtype
              for name, dtype in found.schema.items() if name not in _NOT_LISTED}  # fmt: skip
    return pl.DataFrame(rows or None, schema={**listed, **_stat_columns()})


def lesson_effect_rows(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    thresholds: Thresholds,
    costs: Costs | None = None,
) -> list[dict[str, Any]]:
    """``lesson_effects`` as rows (``to_dicts()``), without Polars: for ``stats``, whose
    signs weigh a few lessons and which imports no Polars otherwise."""
    rows = _lesson_rows(con, filters, int(thresholds["retire_window_days"]))
    return _effect_rows(con, rows, filters, thresholds, costs)


def lesson_rows_ahead(con: duckdb.DuckDBPyConnection, thresholds: Thresholds) -> None:
    """Inside ``metrics.rows_per_base``: start fetching, for every base, the rows
    ``lesson_effect_rows`` of one base without since or until will ask
    (``metrics.fetch_ahead``)."""
    params = _lesson_params(Filters(), int(thresholds["retire_window_days"]))
    metrics.fetch_ahead(con, "effect_lessons", **params)


def ritual_times_ahead(con: duckdb.DuckDBPyConnection, bases: list[str]) -> None:
    """Inside ``metrics.rows_per_base``: start fetching the calls ``lesson_costs`` of each
    of ``bases`` alone will time, the last base's first (the asker goes in order: the two
    meet in the middle, and a fetch the asker reaches first is dropped)."""
    rituals = metrics.lesson_rituals(con, Filters(tuple(bases)))
    for base in reversed(bases):
        own = [item for item in rituals if item["base_path"] == base]
        metrics.ritual_durations_ahead(con, Filters((base,)), _rituals_asked(own))


def _lesson_params(filters: Filters, retire_window_days: int | None) -> dict[str, Any]:
    return {**filters.params(), "retire_window_days": retire_window_days}


def _lesson_rows(
    con: duckdb.DuckDBPyConnection, filters: Filters, retire_window_days: int | None
) -> list[dict[str, Any]]:
    """``queries/effect_lessons.sql``: the lessons' counts, each on every week of its series."""
    params = _one_question(con, _lesson_params(filters, retire_window_days))
    return metrics.query_rows(con, "effect_lessons", **params)


def _one_question(con: duckdb.DuckDBPyConnection, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` of effect_lessons without ``until`` where it changes nothing
    (``queries/effect_until.sql``), for a reader that remembers its answers (the report):
    its signs ask without an end and its effects up to the week's end, most often the
    data's last week, and the two are then one question, asked once. Elsewhere asked as
    it is: the test would be one more query for nothing."""
    if params.get("until") is None or not metrics.remembers(con):
        return params
    found = metrics.query_rows(con, "effect_until", bases=params["bases"], until=params["until"])
    return {**params, "until": None} if found[0]["unchanged"] else params


# the columns of queries/effect_lessons.sql that are not a lesson's: its listing flag and
# the week series
_NOT_LISTED = ("is_listed", *_WEEK_COLUMNS)


def _effect_rows(
    con: duckdb.DuckDBPyConnection,
    rows: list[dict[str, Any]],
    filters: Filters,
    t: Thresholds,
    costs: Costs | None,
) -> list[dict[str, Any]]:
    """The first row of each listed lesson, its week columns dropped and base_path named
    base_root, with its statistics and verdict."""
    if costs is None:
        costs = lesson_costs(con, filters, t)
    out = []
    seen: set[tuple[str, str]] = set()
    for row in rows:
        key = (row["base_path"], row["lesson_id"])
        if not row["is_listed"] or key in seen:
            continue
        seen.add(key)
        counts = {name: value for name, value in row.items() if name not in _NOT_LISTED}
        hours, tokens = costs.get(key, (0.0, 0.0))
        lesson = {"base_root": counts.pop("base_path"), **counts}
        out.append({**lesson, **_statistics(counts, t, hours, tokens)})
    return out


def effect_evidence(
    con: duckdb.DuckDBPyConnection, filters: Filters, *, hits_only: bool = False
) -> pl.DataFrame:
    """The sessions behind the counts: one row per (base_root, lesson_id, session) with a
    hit of the lesson or a recall of it, with its period, transcript, first recall
    (file:line) and first hit's journal line (``queries/effect_evidence.sql``);
    ``hits_only``: the sessions with a hit alone, kept by the query rather than by a
    filter of every row (the report's proofs on D: 300k rows asked for 338)."""
    frame = metrics.query(con, "effect_evidence", **filters.params(), hits_only=hits_only)
    return frame.rename({"base_path": "base_root"})


def lesson_weeks(con: duckdb.DuckDBPyConnection, filters: Filters) -> pl.DataFrame:
    """Exposure per ISO week: one row per (base_root, lesson_id, week, period) with its
    exposed sessions and hits, counted as ``lesson_effects`` counts them, so a period's
    weeks add up to its totals (the week columns of ``queries/effect_lessons.sql``)."""
    import polars as pl

    found = metrics.query(con, "effect_lessons", **_lesson_params(filters, None))
    frame = found.filter(pl.col("week").is_not_null()).select(
        ["base_path", "lesson_id", *_WEEK_COLUMNS]
    )
    return frame.rename({**_WEEK_COLUMNS, "base_path": "base_root"})


def _week_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``lesson_weeks`` rows from the rows of the query."""
    return [
        {"base_root": row["base_path"], "lesson_id": row["lesson_id"],
         **{name: row[column] for column, name in _WEEK_COLUMNS.items()}}
        for row in rows if row["week"] is not None
    ]  # fmt: skip


def _rate(k: int, n: int) -> tuple[float | None, float | None, float | None]:
    interval = wilson(min(k, n), n)
    if interval is None:
        return None, None, None
    return min(k, n) / n, interval[0], interval[1]


def _statistics(
    row: dict[str, Any], t: Mapping[str, float], hours: float, tokens: float
) -> dict[str, Any]:
    kb, nb = min(row["hits_before"], row["exposed_before"]), row["exposed_before"]
    ka, na = min(row["hits_after"], row["exposed_after"]), row["exposed_after"]
    out: dict[str, Any] = {}
    for side, k, n in (("before", kb, nb), ("after", ka, na)):
        rate, low, high = _rate(k, n)
        out |= {f"rate_{side}": rate, f"rate_{side}_lo": low, f"rate_{side}_hi": high}
    diff = newcombe(kb, nb, ka, na)
    out["diff"], out["diff_lo"], out["diff_hi"] = diff if diff else (None, None, None)
    out["p_value"] = fisher_less(ka, na, kb, nb)
    rate_before = out["rate_before"]
    needed = (
        sessions_for_halving(rate_before, t["effect_alpha"], t["effect_power"])
        if rate_before
        else None
    )
    out["sessions_needed"] = needed
    out["sessions_still_needed"] = max(0, needed - na) if needed is not None else None
    kr, nr = row["recalled_hits"], row["recalled_sessions"]
    ku, nu = row["unrecalled_hits"], row["unrecalled_sessions"]
    out["recalled_rate"] = kr / nr if nr else None
    out["unrecalled_rate"] = ku / nu if nu else None
    split = newcombe(ku, nu, kr, nr)
    out["recall_diff"], out["recall_diff_lo"], out["recall_diff_hi"] = (
        split if split else (None, None, None)
    )
    out["recall_p_value"] = fisher_less(kr, nr, ku, nu)
    out["cost_hours_per_week"], out["cost_tokens_per_week"] = hours, tokens
    weeks = row["weeks_after"] or 0
    out["avoided_hits_per_week_max"] = (
        max(0.0, -out["diff_lo"]) * na / weeks if out["diff_lo"] is not None and weeks else None
    )
    out["verdict"], out["verdict_reason"] = verdict(cast(LessonEffect, {**row, **out}), t)
    return out


def verdict(row: LessonEffect, t: Mapping[str, float]) -> tuple[str, str]:
    """The verdict word and a one-sentence reason, by the rule of the module docstring."""
    for rule in (_costs_more, _helps, _retire, _not_holding, _not_surfaced):
        found = rule(row, t)
        if found is not None:
            return found
    return "insufficient evidence", _insufficient_reason(row)


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f}"


def _counts(row: LessonEffect) -> str:
    return (
        f"{row['hits_before']}/{row['exposed_before']} sessions before activation, "
        f"{row['hits_after']}/{row['exposed_after']} after"
    )


def _enough(row: LessonEffect) -> bool:
    """Enough sessions after activation for the halving test, or nothing before to halve."""
    needed = row["sessions_needed"]
    if needed is not None:
        return bool(row["exposed_after"] >= needed)
    return bool(row["exposed_after"] > 0 and not row["hits_before"])


def _costs_more(row: LessonEffect, t: Mapping[str, float]) -> tuple[str, str] | None:
    hours, tokens = row["cost_hours_per_week"], row["cost_tokens_per_week"]
    avoided = row["avoided_hits_per_week_max"]
    if avoided is None:
        return None
    over_hours = hours > avoided * t["hours_per_hit"]
    over_tokens = tokens > avoided * t["tokens_per_hit"]
    if not (over_hours or over_tokens):
        return None
    spent = f"{hours:.1f} h" if over_hours else f"{tokens:,.0f} tokens"
    return "costs more than it saves", (
        f"{spent} a week against at most {avoided:.2f} hits a week avoided ({_counts(row)})"
    )


def _helps(row: LessonEffect, t: Mapping[str, float]) -> tuple[str, str] | None:
    p, high = row["p_value"], row["diff_hi"]
    if row["sessions_needed"] is None or not _enough(row) or p is None or high is None:
        return None
    if p < t["effect_alpha"] and high < 0:
        return "helps", (
            f"hits per 100 sessions fell from {_pct(row['rate_before'])} to "
            f"{_pct(row['rate_after'])} ({_counts(row)}; one-sided p = {p:.3g})"
        )
    return None


def _retire(row: LessonEffect, t: Mapping[str, float]) -> tuple[str, str] | None:
    if row["status"] != "active" or row["window_hits"]:
        return None
    if row["window_sessions"] < t["retire_min_sessions"]:
        return None
    return "retire candidate", (
        f"no hit in the last {int(t['retire_window_days'])} days over "
        f"{row['window_sessions']} exposed sessions"
    )


def _not_holding(row: LessonEffect, t: Mapping[str, float]) -> tuple[str, str] | None:
    kr = row["recalled_hits"]
    if not _enough(row) or kr < t["recalled_but_failed_hits"]:
        return None
    p = row["recall_p_value"]
    if p is not None and p < t["effect_alpha"]:
        return None
    return "not holding", (
        f"{kr} of {row['recalled_sessions']} sessions that recalled it still failed "
        f"(against {row['unrecalled_hits']} of {row['unrecalled_sessions']} that did not): "
        "prose is not enough, build structure"
    )


def _not_surfaced(row: LessonEffect, t: Mapping[str, float]) -> tuple[str, str] | None:
    ku, kr = row["unrecalled_hits"], row["recalled_hits"]
    if not _enough(row) or ku < t["never_recalled_hits"] or ku <= kr:
        return None
    return "not surfaced", (
        f"{ku} of {ku + kr} hits after activation came in sessions that had not recalled it: "
        "fix its triggers or addressee"
    )


def _insufficient_reason(row: LessonEffect) -> str:
    if row["activated_at"] is None:
        return "never active: no sessions after activation to compare"
    if not row["exposed_before"]:
        return f"no exposed session before activation, {_counts(row)}"
    if not row["hits_before"]:
        return f"no hit before activation, so no rate to halve ({_counts(row)})"
    still = row["sessions_still_needed"]
    if still:
        return (
            f"{row['exposed_after']} of the {row['sessions_needed']} exposed sessions after "
            f"activation a halving needs: {still} more ({_counts(row)})"
        )
    return f"the rate did not fall clearly and too few hits tell why ({_counts(row)})"


def lesson_costs(con: duckdb.DuckDBPyConnection, filters: Filters, t: Mapping[str, float]) -> Costs:
    """(ritual hours a week, body tokens a week) per (base, lesson) with a ritual or a body
    read, as ``cost`` and ``bodies`` measure them for the lesson's base: the timed calls of
    its ritual (``cost_calls``) and its body tokens (``bodies_by_lesson``) over the ISO
    weeks of the base's sessions (``effect_cost_weeks``)."""
    weeks = {
        str(row["base_path"]): int(row["weeks"] or 0)
        for row in metrics.query_rows(con, "effect_cost_weeks", **filters.params())
    }
    out: Costs = {}
    rituals = metrics.lesson_rituals(con, filters)
    timed = metrics.ritual_durations(con, filters, _rituals_asked(rituals))
    for item in rituals:
        base, ritual = item["base_path"], item["ritual"]
        seconds = metrics.exact_sum(timed[(base, ritual)])  # as ritual_cost sums them
        span = weeks.get(base, 0)
        per_week = (seconds / 3600 / span) if span else 0.0
        out[(base, item["lesson_id"])] = (per_week, 0.0)
    known = set(metrics.known_bases(con, filters))
    params = {**filters.params(), "divisor": t["chars_per_token"],
              "large_bytes": t["large_body_bytes"]}  # fmt: skip
    for row in metrics.query_rows(con, "bodies_by_lesson", **params):
        base, span = row["base_path"], weeks.get(row["base_path"], 0)
        if base not in known:
            continue
        key = (base, row["lesson_id"])
        per_week = float(row["tokens"] or 0) / span if span else 0.0
        out[key] = (out.get(key, (0.0, 0.0))[0], per_week)
    return out


def _rituals_asked(rituals: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The (base, ritual) pairs of ``lesson_rituals`` rows that ``lesson_costs`` times, each
    once (two lessons of a base may share a ritual), in their order."""
    return list(dict.fromkeys((item["base_path"], item["ritual"]) for item in rituals))


def effect_document(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    thresholds: Thresholds,
    *,
    as_text: bool = False,
    evidence: bool = True,
) -> EffectDocument:
    """The ``effect --json`` document: per base, its lessons and its interventions.

    ``{"schema": "lessons-analytics/effect/1", "generated_at", "bases": [{"base",
    "lessons": [lesson_effects rows], "interventions": [interventions rows],
    "weeks": [lesson_weeks rows: lesson_id, week, period, exposed_sessions, hits,
    hits_without_session], "evidence": [effect_evidence rows], "by_verdict": {verdict:
    lessons}}], "totals":
    {"lessons", "interventions", "by_verdict"}}``; every verdict word is a key of
    ``by_verdict``, zero or not.

    ``as_text``: for ``redact.encode_json`` alone, each base's evidence list may be its JSON
    text (``metrics.query_json``), which encodes as the rows would. Without ``evidence``
    every evidence list is empty: the tables show none of it, and it is most of the
    queries' time (D: 0.2 of 0.5 CPU s, and DuckDB writing its 34 MB).
    """
    # the evidence and the changes are read on cursors of their own threads: DuckDB runs
    # one part's queries (without the GIL) while Python turns another's rows into objects
    with ThreadPoolExecutor(max_workers=2) as pool:
        evidence_rows = (
            pool.submit(metrics.on_cursor, _evidence, con, filters, as_text) if evidence else None
        )
        change_rows = pool.submit(metrics.on_cursor, intervention_rows, con, filters, thresholds)
        found = _lesson_rows(con, filters, int(thresholds["retire_window_days"]))
        lessons = _grouped(_effect_rows(con, found, filters, thresholds, None))
        changes = _grouped(change_rows.result())
        listed = evidence_rows.result() if evidence_rows is not None else {}
    weeks = _grouped(_week_rows(found))
    out: list[EffectBase] = []
    for base in metrics.known_bases(con, filters):
        rows = cast(list[LessonEffect], lessons.get(base, []))
        shown = {row["lesson_id"] for row in rows}
        out.append({"base": base, "lessons": rows,
                    "interventions": cast(list[Intervention], changes.get(base, [])),
                    "weeks": [cast(LessonWeek, w) for w in weeks.get(base, [])
                              if w["lesson_id"] in shown],
                    "evidence": cast(list[EffectEvidence], listed.get(base, [])),
                    "by_verdict": _by_verdict(rows)})  # fmt: skip
    every = [row for entry in out for row in entry["lessons"]]
    totals: EffectTotals = {"lessons": len(every),
                            "interventions": sum(len(e["interventions"]) for e in out),
                            "by_verdict": _by_verdict(every)}  # fmt: skip
    return {"schema": metrics.schema("effect"), "generated_at": metrics.generated_at(),
            "bases": out, "totals": totals}  # fmt: skip


# the order by of queries/effect_evidence.sql: one row per (base, lesson, session)
_EVIDENCE_ORDER = ("base_path", "lesson_id", "started_at", "session_id")


def _evidence(
    con: duckdb.DuckDBPyConnection, filters: Filters, as_text: bool
) -> Mapping[str, list[dict[str, Any]] | CleanJson]:
    """Each base's ``effect_evidence`` rows, or their JSON text (``as_text``, where
    ``metrics.query_json`` can write them)."""
    if as_text:
        found = metrics.query_json(con, "effect_evidence", 3, _EVIDENCE_ORDER, **filters.params())
        if found is not None:
            return found
    return _grouped(_evidence_rows(con, filters))


def _evidence_rows(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[dict[str, Any]]:
    """``effect_evidence`` as rows, without Polars."""
    rows = metrics.query_rows(con, "effect_evidence", **filters.params())
    return [{"base_root": row.pop("base_path"), **row} for row in rows]


def _grouped(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        out.setdefault(row.pop("base_root"), []).append(row)
    return out


def _by_verdict(rows: list[LessonEffect]) -> dict[str, int]:
    return {word: sum(1 for row in rows if row["verdict"] == word) for word in VERDICTS}
