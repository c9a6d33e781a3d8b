"""Tables of the effect document: per lesson before/after, per group of changes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lessons_analytics import formats
from lessons_analytics.documents import EffectDocument, Intervention, LessonEffect
from lessons_analytics.tables import grid
from lessons_analytics.tables.names import finish, of_docs

NOTES = [
    "before, after: sessions with a hit / exposed sessions, before and after the lesson became",
    "  active; change: after - before in points, 95 % interval; p: one-sided Fisher test;",
    "  needed: exposed sessions a halving needs; recalled, not recalled: hits / sessions after",
    "  activation by whether the lesson was recalled before the miss",
]
GROUP_NOTES = [
    "groups: changes to a base with their numbers over the sessions before and after;",
    "  * confounded: changes too close to tell apart share one group",
]


def effect(doc: EffectDocument) -> str:
    if not doc["bases"]:
        return "no lesson bases in the warehouse"
    name = of_docs(doc["bases"])
    out: list[str] = []
    groups = False
    for entry in doc["bases"]:
        lessons = entry["lessons"]
        out.append(name(entry["base"]))
        out.append(grid.table([_lesson_row(r) for r in lessons],
                                ["lesson", "status", "before", "after", "change (95 %)", "p",
                                 "verdict"]))  # fmt: skip
        out.append("")
        out.append(grid.table([_recall_row(r) for r in lessons],
                                ["lesson", "needed", "recalled", "not recalled"]))  # fmt: skip
        if entry["interventions"]:
            groups = True
            out.append("")
            out.append(grid.table([_group_row(g) for g in _groups(entry["interventions"])],
                                    ["group", "commits", "days", "kinds", "coverage",
                                     "blind", "hit rate"]))  # fmt: skip
        out.append("")
    return finish("\n".join(out[:-1]), name, NOTES + (GROUP_NOTES if groups else []))


def _rate(k: int, n: int) -> str:
    """``16/38 (42 %)``; the percentage is the rate the statistics use, hits capped at the
    sessions they are divided by."""
    if not n:
        return f"{formats.integer(k)}/0"
    return f"{formats.integer(k)}/{formats.integer(n)} ({formats.percent(min(k, n) / n)})"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.0f}"


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.2g}"


def _lesson_row(row: LessonEffect) -> list[Any]:
    change = (
        f"{_points(row['diff'])} [{_points(row['diff_lo'])}, {_points(row['diff_hi'])}]"
        if row["diff"] is not None
        else "-"
    )
    return [row["lesson_id"], row["status"], _rate(row["hits_before"], row["exposed_before"]),
            _rate(row["hits_after"], row["exposed_after"]), change, _p(row["p_value"]),
            row["verdict"]]  # fmt: skip


def _recall_row(row: LessonEffect) -> list[Any]:
    return [row["lesson_id"], row["sessions_needed"],
            f"{row['recalled_hits']}/{row['recalled_sessions']}",
            f"{row['unrecalled_hits']}/{row['unrecalled_sessions']}"]  # fmt: skip


def _groups(rows: list[Intervention]) -> list[list[Intervention]]:
    """Changes of one group share their numbers: the table shows each group once."""
    groups: dict[int, list[Intervention]] = {}
    for row in rows:
        groups.setdefault(row["group_id"], []).append(row)
    return list(groups.values())


def _group_row(group: Sequence[Mapping[str, Any]]) -> list[Any]:
    # a Mapping, not Intervention: side() builds the before/after keys from their stems
    row, last = group[0], group[-1]

    def side(num: str, den: str) -> str:
        return f"{row[num + '_before']}/{row[den + '_before']}→{row[num + '_after']}/" + str(
            row[den + "_after"]
        )

    kinds = sorted({kind for change in group for kind in change["kinds"]})
    first, final = row["committed_at"].date(), last["committed_at"].date()
    days = first.isoformat()
    if final != first:
        days += f"..{final.isoformat()[5 if final.year == first.year else 0 :]}"
    commits = f"{len(group)}{'*' if row['confounded'] else ''}"
    return [row["group_id"], commits, days, ", ".join(kinds), side("recalled", "sessions"),
            side("blind", "reading_index"), side("hit_sessions", "sessions")]  # fmt: skip
