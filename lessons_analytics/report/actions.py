"""The "Do this first" list: the few actions per base that pay most, each one sentence with its
measured payoff and its evidence.

The common unit is **session hours per week** (``payoff_hours_per_week``), measured over
the report's trend window (``weeks`` = its ISO weeks, up to 12, never before the first
session). Every payoff is converted to it with the prices the effect verdict uses
(``effect.py``: ``hours_per_hit``, ``tokens_per_hit``, settable in the config), so that
"costs more than it saves" and this ranking agree:

- a ritual: its measured hours (as ``cost`` counts them) / weeks;
- a hit: ``hours_per_hit`` session hours (what noticing and repairing a repeated failure
  costs);
- blind sessions (read the index, saw no active lesson): per week × the base's hits per
  exposed session × ``hours_per_hit`` — the failures to expect in sessions the lessons
  could not reach;
- body tokens: per week × ``hours_per_hit`` / ``tokens_per_hit``.

Which actions are proposed (each rule is also a sign or a verdict elsewhere):

- restructure the index: some session of the window was blind (``heads``);
- build structure for L: an active lesson hit while recalled at least
  ``recalled_but_failed_hits`` times in the window (``recalled-but-failed``), or whose
  effect verdict is ``not holding``;
- fix the triggers of L: an active lesson with at least ``never_recalled_hits`` hits of
  known attribution, most of them not recalled (``not_recalled`` + ``index_only`` >
  ``recalled``), or whose verdict is ``not surfaced``;
- neither of the two above for a lesson whose verdict is ``helps`` or ``retire candidate``
  (the effect measured over its whole history outranks a split of the window's hits:
  a lesson that halved its failure has mostly unrecalled hits from before it was active);
- drop or automate ritual R: more than ``costly_ritual_hours_per_week`` in the window, or
  the verdict ``costs more than it saves``; lessons declaring the same ritual share one
  action (their calls are the same calls);
- slim the body of L: more than ``costly_body_tokens_per_week`` body tokens a week, or a
  large body that was read;
- promote or reject candidates: the ``candidate-needs-verdict`` sign's lessons; payoff
  their hits in the window.

Ranked by payoff, then by the order above, then by lesson id; the first
``MAX_ACTIONS`` are shown, the rest are kept in ``data.json``.

A ``sentence`` is in the report layout's mini-language (``markup.inline_spans``): the data in
it (lesson ids, ritual patterns) goes through ``markup.lit``/``lit_code``, so a backtick or an
asterisk in data shows as itself (data.json holds it backslash-escaped, ``\\*``).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from lessons_analytics import metrics
from lessons_analytics.documents import RitualCost
from lessons_analytics.engine import duckdb
from lessons_analytics.markup import lit, lit_code
from lessons_analytics.report import evidence
from lessons_analytics.settings import Thresholds

MAX_ACTIONS = 5
# verdicts that settle a lesson: no structure or trigger action, whatever its recall split
SETTLED = ("helps", "retire candidate")
KINDS = ("restructure-index", "build-structure", "fix-triggers", "drop-ritual", "slim-body",
         "decide-candidates")  # fmt: skip


def _rates(t: Thresholds, weeks: int) -> dict[str, Any]:
    return {
        "weeks": weeks,
        "hours_per_hit": float(t["hours_per_hit"]),
        "tokens_per_hit": float(t["tokens_per_hit"]),
        "hours_per_token": float(t["hours_per_hit"]) / float(t["tokens_per_hit"]),
    }


def base_actions(
    con: duckdb.DuckDBPyConnection,
    trend: metrics.Filters,
    weeks: int,
    t: Thresholds,
    signs: dict[str, Any],
    verdicts: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Every action that applies to the base of ``trend`` (one base), ranked, with the
    conversion rates used."""
    rates = _rates(t, weeks)
    cov = metrics.coverage_document(con, trend)["bases"][0]
    rates["exposed_sessions"] = cov["sessions_in_scope"]
    found = evidence.hits(con, trend)
    rates["hits"] = found.height
    rates["hits_per_exposed_session"] = (
        found.height / cov["sessions_in_scope"] if cov["sessions_in_scope"] else 0.0
    )
    v = verdicts or {}
    actions = [
        *_index(con, trend, rates),
        *_lessons(found, rates, t, v),
        *_rituals(con, trend, rates, t, v),
        *_bodies(con, trend, rates, t),
        *_candidates(found, rates, signs),
    ]
    ranked = sorted(actions, key=_rank)
    for i, action in enumerate(ranked, 1):
        action["rank"] = i
    return {"unit": "session hours per week", "rates": rates, "actions": ranked}


def _rank(action: dict[str, Any]) -> tuple[int, float, int, str]:
    payoff = action["payoff_hours_per_week"]
    return (payoff is None, -(payoff or 0.0), KINDS.index(action["kind"]), action["subject"])


def _action(
    kind: str, subject: str, sentence: str, payoff: float | None, proof: evidence.Evidence,
    **measure: Any,
) -> dict[str, Any]:  # fmt: skip
    return {"kind": kind, "subject": subject, "sentence": sentence,
            "payoff_hours_per_week": payoff, "measure": measure, "evidence": proof}  # fmt: skip


def _per_week(count: float, rates: dict[str, Any]) -> float:
    return count / rates["weeks"] if rates["weeks"] else 0.0


def _index(
    con: duckdb.DuckDBPyConnection, trend: metrics.Filters, rates: dict[str, Any]
) -> list[dict[str, Any]]:
    heads = metrics.heads_document(con, trend)["bases"][0]
    blind = heads["blind_sessions"]
    if not blind:
        return []
    per_week = _per_week(blind, rates)
    payoff = per_week * rates["hits_per_exposed_session"] * rates["hours_per_hit"]
    sentence = (
        f"Restructure INDEX.md so the Active rows come first: {per_week:.1f} sessions a week "
        f"read it and saw no active lesson ({blind} of {heads['sessions_reading_index']} "
        f"sessions reading it in {rates['weeks']} weeks)."
    )
    proof = evidence.blind_sessions(evidence.index_reads(con, trend))
    return [_action("restructure-index", "INDEX.md", sentence, payoff, proof,
                    blind_sessions=blind, per_week=per_week,
                    sessions_reading_index=heads["sessions_reading_index"])]  # fmt: skip


def _lessons(
    found: pl.DataFrame, rates: dict[str, Any], t: Thresholds, verdicts: dict[str, str]
) -> list[dict[str, Any]]:
    out = []
    active = found.filter(pl.col("lesson_status") == "active")
    for lid in sorted(set(active["lesson_id"].to_list())):
        if verdicts.get(lid) in SETTLED:
            continue  # measured to work (or to be idle): its hits are not a reason to act
        mine = active.filter(pl.col("lesson_id") == lid)
        recalled = mine.filter(pl.col("recall") == "recalled")
        missed = mine.filter(pl.col("recall").is_in(["not_recalled", "index_only"]))
        known = recalled.height + missed.height
        weeks = rates["weeks"]
        if recalled.height >= t["recalled_but_failed_hits"] or (
            verdicts.get(lid) == "not holding" and recalled.height
        ):
            sentence = (
                f"Build structure (a check, a hook or a gate) for {lit(lid)}: {recalled.height} "
                f"hits while it was recalled in {weeks} weeks — its prose is not holding."
            )
            payoff = _per_week(recalled.height, rates) * rates["hours_per_hit"]
            out.append(_action("build-structure", lid, sentence, payoff,
                               evidence.hit_list(recalled), hits_recalled=recalled.height,
                               hits=mine.height))  # fmt: skip
        mostly_missed = known >= t["never_recalled_hits"] and missed.height > recalled.height
        if mostly_missed or (verdicts.get(lid) == "not surfaced" and missed.height):
            sentence = (
                f"Fix the triggers or the addressee of {lit(lid)}: {missed.height} of its {known} "
                f"hits with a transcript came without the lesson recalled in {weeks} weeks."
            )
            payoff = _per_week(missed.height, rates) * rates["hours_per_hit"]
            out.append(_action("fix-triggers", lid, sentence, payoff,
                               evidence.hit_list(missed), hits_not_recalled=missed.height,
                               hits_known=known))  # fmt: skip
    return out


def _rituals(
    con: duckdb.DuckDBPyConnection,
    trend: metrics.Filters,
    rates: dict[str, Any],
    t: Thresholds,
    verdicts: dict[str, str],
) -> list[dict[str, Any]]:
    """One action per ritual pattern: lessons that declare the same ritual share its calls,
    which are counted once."""
    by_pattern: dict[str, list[RitualCost]] = {}
    for r in metrics.cost_document(con, trend, gap_cap_s=t["gap_cap_s"])["rituals"]:
        by_pattern.setdefault(r["pattern"], []).append(r)
    out = []
    for pattern, items in by_pattern.items():
        r = items[0]  # the same pattern over the same sessions: the same calls
        per_week = _per_week(r["total_hours"], rates)
        lessons = sorted(i["lesson"] or "" for i in items)
        costly = any(verdicts.get(lid) == "costs more than it saves" for lid in lessons)
        if per_week <= t["costly_ritual_hours_per_week"] and not (costly and r["calls"]):
            continue
        sentence = (
            f"Drop or automate the ritual {lit_code(pattern)} of {lit(', '.join(lessons))}: "
            f"{per_week:.2f} session hours a week ({r['calls']} calls in {rates['weeks']} "
            "weeks)."
        )
        proof = evidence.call_list(evidence.ritual_calls(con, trend, pattern), ", ".join(lessons))
        out.append(_action("drop-ritual", ", ".join(lessons), sentence, per_week, proof,
                           pattern=pattern, calls=r["calls"], lessons=lessons,
                           total_hours=r["total_hours"]))  # fmt: skip
    return out


def _bodies(
    con: duckdb.DuckDBPyConnection, trend: metrics.Filters, rates: dict[str, Any],
    t: Thresholds,
) -> list[dict[str, Any]]:  # fmt: skip
    reads = evidence.body_reads(con, trend, t)
    out = []
    for lid in sorted(set(reads["lesson_id"].to_list())):
        mine = reads.filter(pl.col("lesson_id") == lid)
        tokens = int(mine["tokens"].sum())
        per_week = _per_week(tokens, rates)
        large = bool(mine["is_large"].any())
        if per_week <= t["costly_body_tokens_per_week"] and not large:
            continue
        payoff = per_week * rates["hours_per_token"]
        sentence = (
            f"Slim the body of {lit(lid)}: {per_week:,.0f} tokens a week delivered by "
            f"{mine.height} read(s) in {rates['weeks']} weeks"
            + (" (a body over the large-body size)." if large else ".")
        )
        out.append(_action("slim-body", lid, sentence, payoff, evidence.body_list(mine),
                           tokens=tokens, tokens_per_week=per_week, reads=mine.height,
                           large=large))  # fmt: skip
    return out


def _candidates(
    found: pl.DataFrame, rates: dict[str, Any], signs: dict[str, Any]
) -> list[dict[str, Any]]:
    sign = next((s for s in signs.get("signs", []) if s["name"] == "candidate-needs-verdict"), None)
    if not sign or not sign["fired"]:
        return []
    ids = sorted(sign["lessons"])
    mine = found.filter(pl.col("lesson_id").is_in(ids))
    payoff = _per_week(mine.height, rates) * rates["hours_per_hit"]
    sentence = (
        f"Promote or reject {len(ids)} candidate(s) past the verdict threshold "
        f"({lit(', '.join(ids))}): {mine.height} hits in {rates['weeks']} weeks."
    )
    return [_action("decide-candidates", ", ".join(ids), sentence, payoff,
                    evidence.hit_list(mine), candidates=ids, hits=mine.height)]  # fmt: skip
