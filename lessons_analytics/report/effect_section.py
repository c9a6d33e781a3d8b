"""Does each lesson help? The report's per-lesson effect: one row per lesson with its
verdict and its numbers (``effect.lesson_effects``), the hit sessions behind them as
evidence.

The headline rate is **hits per 100 exposed sessions**. The effect is measured on all data
up to the end of the report week (before and after a lesson's activation need the whole
history, not one week).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import polars as pl

from lessons_analytics import metrics
from lessons_analytics.effect import effect_evidence, lesson_effects
from lessons_analytics.engine import duckdb
from lessons_analytics.interventions import intervention_windows
from lessons_analytics.markup import lit
from lessons_analytics.report import evidence
from lessons_analytics.report.blocks import Details, evidence_block
from lessons_analytics.report.layout import Heading, Layout, Para, Table, slug
from lessons_analytics.report.numbers import DIRECTION_ONLY_BELOW, GOOD_DIRECTION, SMALL
from lessons_analytics.settings import Thresholds

# verdict -> what the reader does about it (the action it feeds, when there is one)
VERDICT_ORDER = ("not holding", "not surfaced", "costs more than it saves", "retire candidate",
                 "helps", "insufficient evidence")  # fmt: skip
KEEP = ("lesson_id", "status", "activated_at", "activation_source", "exposed_before",
        "hits_before", "exposed_after", "hits_after", "hits_without_session",
        "recalled_sessions", "recalled_hits", "unrecalled_sessions", "unrecalled_hits",
        "rate_before", "rate_before_lo", "rate_before_hi", "rate_after", "rate_after_lo",
        "rate_after_hi", "diff", "diff_lo", "diff_hi", "p_value", "sessions_needed",
        "sessions_still_needed", "recalled_rate", "unrecalled_rate", "recall_diff",
        "recall_diff_lo", "recall_diff_hi", "recall_p_value", "cost_hours_per_week",
        "cost_tokens_per_week", "verdict", "verdict_reason")  # fmt: skip


def effect_hits(con: duckdb.DuckDBPyConnection, base: str, until: datetime) -> pl.DataFrame:
    """The exposed sessions with a hit of a lesson of ``base`` up to ``until``
    (``effect.effect_evidence``): the sessions behind ``effect_rows``."""
    filters = metrics.Filters((base,), None, until)
    return effect_evidence(con, filters, hits_only=True)


def effect_rows(
    con: duckdb.DuckDBPyConnection,
    base: str,
    until: datetime,
    t: Thresholds,
    hits_of: Callable[[], pl.DataFrame] | None = None,
) -> list[dict[str, Any]]:
    """The effect of every lesson of ``base`` up to ``until``, with the hit sessions behind
    it, worst verdict first. ``hits_of``: gives ``effect_hits`` of the same base and
    ``until`` (the report asks it on a thread of its own); asked here without it."""
    filters = metrics.Filters((base,), None, until)
    frame = lesson_effects(con, filters, t)
    if frame.is_empty():
        return []
    hits = hits_of() if hits_of is not None else effect_hits(con, base, until)
    lines = evidence.hits(con, filters)
    rows = []
    for row in frame.to_dicts():
        out = {k: row.get(k) for k in KEEP}
        if isinstance(out["activated_at"], datetime):
            out["activated_at"] = out["activated_at"].isoformat()
        out["evidence"] = _proof(hits, lines, row["lesson_id"])
        rows.append(out)
    return sorted(rows, key=lambda r: (_order(r["verdict"]), r["lesson_id"]))


def _order(verdict: str | None) -> int:
    return VERDICT_ORDER.index(verdict) if verdict in VERDICT_ORDER else len(VERDICT_ORDER)


def _proof(hits: pl.DataFrame, lines: pl.DataFrame, lesson: str) -> evidence.Evidence:
    """One item per exposed session with a hit (``effect_evidence``, the rows its counts
    are made of): period, recall, and the transcript line of the session's first miss."""
    miss = {
        r["session_id"]: evidence.ref(r["transcript_file"], r["miss_line"])
        for r in lines.filter(pl.col("lesson_id") == lesson).sort("line_no").to_dicts()
        if r["session_id"] and r["transcript_file"]
    }
    items = []
    for r in hits.filter(pl.col("lesson_id") == lesson).to_dicts():
        where = miss.get(r["session_id"]) or r["transcript_file"]
        recall = ", recalled" if r["is_recalled"] else ""
        note = f"{lesson} hit {r['period']} activation{recall if r['period'] == 'after' else ''}"
        items.append(evidence.item(r["session_id"], r["started_at"], where, note))
    return evidence.listing(items, "sessions")


# ---------------------------------------------------------------- layout


def _per100(k: int | None, n: int | None, rate: float | None, lo: Any, hi: Any) -> str:
    if not n or rate is None:
        return "–"
    mark = SMALL if n < DIRECTION_ONLY_BELOW else ""
    interval = f"\n[{100 * lo:.1f}–{100 * hi:.1f}]" if lo is not None and hi is not None else ""
    return f"{100 * rate:.1f}{mark} ({k}/{n}){interval}"


def _diff(row: dict[str, Any], key: str = "diff") -> tuple[str, str]:
    value, lo, hi = row[key], row[f"{key}_lo"], row[f"{key}_hi"]
    if value is None:
        return "–", ""
    text = f"{100 * value:+.1f}"
    if lo is None or hi is None:
        return text, ""
    # coloured only when the interval excludes 0: a fall is good, a rise bad
    tone = "good" if hi < 0 else ("bad" if lo > 0 else "")
    word = {"good": ", fewer", "bad": ", more"}.get(tone, "")
    return f"{text}{word}\n[{100 * lo:+.1f}…{100 * hi:+.1f}]", tone


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def effect_section(out: Layout, s: dict[str, Any]) -> None:
    tag = slug(s["name"])
    rows = s.get("effects") or []
    out.add(Heading(3, "Does each lesson help? (hits per 100 exposed sessions)", f"{tag}-effect"))
    if not rows:
        out.add(Para("No lesson names a target or has a hit: no effect to measure.", "empty"))
        return
    table, tones, links = [], [], []
    for r in rows:
        diff, tone = _diff(r)
        recall, recall_tone = _diff(r, "recall_diff")
        needed = r["sessions_still_needed"]
        table.append([
            lit(r["lesson_id"]),
            lit(r["verdict"] or "–"),
            _per100(r["hits_before"], r["exposed_before"], r["rate_before"],
                    r["rate_before_lo"], r["rate_before_hi"]),
            _per100(r["hits_after"], r["exposed_after"], r["rate_after"],
                    r["rate_after_lo"], r["rate_after_hi"]),
            diff,
            _p(r["p_value"]),
            _per100(r["recalled_hits"], r["recalled_sessions"], r["recalled_rate"], None, None)
            + " vs "
            + _per100(r["unrecalled_hits"], r["unrecalled_sessions"], r["unrecalled_rate"],
                      None, None),
            recall,
            "–" if not needed else f"{needed:,} more",
        ])  # fmt: skip
        tones.append(["", "", "", "", tone, "", "", recall_tone, ""])
        links.append([f"ev-{tag}-effect-{slug(r['lesson_id'])}", "", "", "", "", "", "", "", ""])
    out.add(
        Table(
            [
                "lesson",
                "verdict",
                "before",
                "after",
                "change per 100",
                "p (fell)",
                "recalled vs not, after",
                "recalled − not",
                "sessions still needed",
            ],
            table,
            tones=tones,
            links=links,
        )  # fmt: skip
    )
    out.add(
        Para(
            "Rates are hits per 100 exposed sessions (every session of the base, subagents "
            "included, split at the lesson's activation in its git history; a session with "
            "hits counts once), with the 95 % Wilson interval; the change is after − before "
            "with its Newcombe interval, coloured only when the interval excludes 0; p is the "
            "one-sided Fisher test that the rate fell. Recalled vs not compares, after "
            "activation, the sessions where the lesson was recalled before the miss with the "
            "others (a different denominator from the after rate: hits without a session "
            "are in the after rate but in neither side). – : no exposed session on that side.",
            "note",
        ),
        Details(
            f"{tag}-verdicts",
            "Why each verdict",
            [
                f"*{lit(r['lesson_id'])}* {lit(r['verdict'])}: {lit(r['verdict_reason'])}"
                for r in rows
            ],
        ),
    )
    for r in rows:
        if not r["evidence"]["count"]:
            continue
        out.add(
            evidence_block(
                f"ev-{tag}-effect-{slug(r['lesson_id'])}",
                f"Evidence: {lit(r['lesson_id'])}, exposed sessions with a hit",
                r["evidence"],
            )
        )


# ---------------------------------------------------------------- changes to the base

# (measure, label, its denominator, which way is good)
CHANGE_MEASURES = (
    ("coverage", "recall coverage", "sessions", "coverage"),
    ("blind_share", "blind share", "reading_index", "blind_sessions"),
    ("hit_rate", "sessions with a hit", "sessions", "hits"),
)
CHANGE_NUMERATORS = {"coverage": "recalled", "blind_share": "blind", "hit_rate": "hit_sessions"}


def intervention_rows(
    con: duckdb.DuckDBPyConnection, base: str, until: datetime, t: Thresholds
) -> list[dict[str, Any]]:
    """Each group of changes to ``base`` up to ``until`` (commits closer than the window
    form one group and share its numbers), newest first."""
    filters = metrics.Filters((base,), None, until)
    frame, sessions = intervention_windows(con, filters, t)
    if frame.is_empty():
        return []
    groups: dict[int, dict[str, Any]] = {}
    for r in frame.sort("committed_at").to_dicts():
        group = groups.get(r["group_id"])
        if group is None:
            group = groups[r["group_id"]] = {
                k: v
                for k, v in r.items()
                if k not in ("commit", "committed_at", "kinds", "details")
            }
            group["commits"], group["details"] = [], []
            for key in ("group_first_at", "group_last_at"):
                value = group[key]
                group[key] = value.isoformat() if isinstance(value, datetime) else value
            group["evidence"] = _change_proof(sessions, r["group_id"])
        group["commits"].append(r["commit"][:7])
        group["details"] += [d for d in r["details"] or [] if d not in group["details"]]
    return sorted(groups.values(), key=lambda g: g["group_first_at"] or "", reverse=True)


_CHANGE_FLAGS = (("recalled", "is_recalled"), ("read the index", "is_reading_index"),
                 ("blind", "is_blind"), ("hit", "is_hit"))  # fmt: skip


def _change_proof(sessions: pl.DataFrame, group_id: int) -> evidence.Evidence:
    """The window sessions of one group (``interventions.intervention_windows``),
    before then after, each with what it counts for: the counts of the row's cells are
    the items with that word on their side."""
    items = []
    for r in sessions.filter(pl.col("group_id") == group_id).to_dicts():
        flags = [word for word, key in _CHANGE_FLAGS if r[key]]
        note = f"{r['side']}: " + (", ".join(flags) if flags else "no recall, no index read")
        where = evidence.ref(r["ref_file"], r["ref_line"])
        items.append(evidence.item(r["session_id"], r["started_at"], where, note))
    return evidence.listing(items, "sessions")


def _side(row: dict[str, Any], measure: str, side: str, den: str) -> str:
    k, n = row[f"{CHANGE_NUMERATORS[measure]}_{side}"], row[f"{den}_{side}"]
    value = row[f"{measure}_{side}"]
    if not n or value is None:
        return "–"
    return f"{100 * value:.0f} % ({k}/{n}){SMALL if n < DIRECTION_ONLY_BELOW else ''}"


def interventions_section(out: Layout, s: dict[str, Any]) -> None:
    rows = s.get("interventions") or []
    out.add(Heading(3, "Changes to the base: before and after"))
    if not rows:
        out.add(Para("No change to the index layout, the lessons' status or a hook or scout "
                     "prompt file in the history.", "empty"))  # fmt: skip
        return
    tag = slug(s["name"])
    table, tones, links = [], [], []
    for g in rows[:12]:
        cells = [
            f"{(g['group_first_at'] or '')[:10]}"
            + (f" – {(g['group_last_at'] or '')[:10]}" if g["group_commits"] > 1 else ""),
            f"{g['group_commits']} commit(s)" + (", confounded" if g["confounded"] else ""),
            lit("; ".join(g["details"][:4])) + (" …" if len(g["details"]) > 4 else ""),
        ]
        row_tones = ["", "", ""]
        for measure, _, den, key in CHANGE_MEASURES:
            diff, tone_ = _change(g, measure, key)
            sides = f"{_side(g, measure, 'before', den)} → {_side(g, measure, 'after', den)}"
            cells.append(f"{sides}\n{diff}" if diff else sides)
            row_tones.append(tone_)
        table.append(cells)
        tones.append(row_tones)
        links.append([_change_anchor(tag, g)] + [""] * (len(cells) - 1))
    out.add(
        Table(
            [
                "when",
                "commits",
                "what changed",
                "recall coverage¹",
                "blind share²",
                "sessions with a hit¹",
            ],
            table,
            tones=tones,
            links=links,
        ),  # fmt: skip
        Para(
            f"Each side is the {s['intervention_window']} sessions just before the first and "
            "just after the last commit of a group; commits closer than that are one group, "
            "*confounded*: the credit goes to the package of changes, not to one. "
            "¹ of the window's sessions. ² of the window's sessions that read the index "
            "(another denominator). Changes are coloured only when the Newcombe interval "
            "excludes 0."
            + (f" {len(rows) - 12} older group(s) in data.json." if len(rows) > 12 else ""),
            "note",
        ),  # fmt: skip
    )
    for g in rows[:12]:
        if g.get("evidence", {}).get("count"):
            out.add(
                evidence_block(
                    _change_anchor(tag, g),
                    f"Evidence: changes of {(g['group_first_at'] or '')[:10]}, window sessions",
                    g["evidence"],
                    limit=2 * int(s["intervention_window"]),
                )
            )


def _change_anchor(tag: str, g: dict[str, Any]) -> str:
    return f"ev-{tag}-change-{g['group_id']}"


def _change(g: dict[str, Any], measure: str, key: str) -> tuple[str, str]:
    value, lo, hi = g[f"{measure}_diff"], g[f"{measure}_diff_lo"], g[f"{measure}_diff_hi"]
    if value is None or lo is None or hi is None:
        return "", ""
    direction = GOOD_DIRECTION[key]
    tone_ = ""
    if lo > 0 or hi < 0:
        tone_ = "good" if (value > 0) == (direction > 0) else "bad"
    return f"{100 * value:+.0f} pp [{100 * lo:+.0f}…{100 * hi:+.0f}]", tone_
