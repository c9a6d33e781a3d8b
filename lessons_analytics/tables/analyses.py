"""Tables of the analysis documents: heads, coverage, hits, bodies, cost, recalled.

Bases appear by their short names, with a legend to their paths under the output; numbers
as :mod:`lessons_analytics.formats` writes them.
"""

from __future__ import annotations

from lessons_analytics import formats
from lessons_analytics.documents import (
    BodiesDocument,
    CostDocument,
    CoverageDocument,
    HeadsDocument,
    HitsDocument,
    RecalledDocument,
)
from lessons_analytics.tables import grid
from lessons_analytics.tables.names import finish, of_docs


def heads(doc: HeadsDocument) -> str:
    name = of_docs(doc["bases"])
    rows = [
        [
            name(b["base"]),
            b["reads"],
            b["head_reads"],
            b["head_20_60"],
            b["prefix_reads"],
            b["blind_reads"],
            b["truncated_reads"],
            formats.share(b["blind_sessions"], b["sessions_reading_index"]),
        ]
        for b in doc["bases"]
    ]
    headers = ["base", "reads", "head", "head 20-60", "prefix", "blind", "truncated",
               "blind sessions"]  # fmt: skip
    return finish(grid.table(rows, headers), name)


def coverage(doc: CoverageDocument) -> str:
    name = of_docs(doc["bases"])
    rows = [
        [
            name(b["base"]),
            b["sessions_in_scope"],
            formats.share(b["sessions_reading_index"], b["sessions_in_scope"]),
            formats.share(b["sessions_recalled"], b["sessions_in_scope"]),
        ]
        for b in doc["bases"]
    ]
    out = [grid.table(rows, ["base", "sessions", "read index", "recalled"])]
    for b in doc["bases"]:
        if b["by_week"]:
            weeks = [
                [w["week"] + (" (partial)" if w["partial"] else ""), w["sessions_in_scope"],
                 formats.share(w["sessions_recalled"], w["sessions_in_scope"])]
                for w in b["by_week"]
            ]  # fmt: skip
            out += [f"\n{name(b['base'])}", grid.table(weeks, ["week", "sessions", "recalled"])]
            if any(w["partial"] for w in b["by_week"]):
                out.append(
                    "(partial) --since/--until start or end inside that week: its counts"
                    " cover only part of it, not a trend point"
                )
    return finish("\n".join(out), name)


LESSON_HITS = ["lesson", "hits", "independent", "recalled", "index only", "not recalled", "unknown"]
TOP3 = "top 3: the share of its hits the 3 most hit lessons have"


def hits(doc: HitsDocument) -> str:
    name = of_docs(doc["bases"])
    rows = []
    for b in doc["bases"]:
        r = b["by_recall"]
        rows.append(
            [
                name(b["base"]),
                b["hits"],
                formats.share(r["recalled"], b["hits"]),
                formats.share(r["index_only"], b["hits"]),
                formats.share(r["not_recalled"], b["hits"]),
                formats.share(r["unknown"], b["hits"]),
                formats.percent(b["top3_share"]),
                len(b["disagreements"]),
            ]
        )
    headers = ["base", "hits", "recalled", "index only", "not recalled", "unknown", "top 3",
               "disagreements"]  # fmt: skip
    out = [grid.table(rows, headers)]
    for b in doc["bases"]:
        if b["lessons"]:
            lessons = [
                [i["id"], i["hits"], i["independent"], i["recalled"], i["index_only"],
                 i["not_recalled"], i["unknown"]]
                for i in b["lessons"]
            ]  # fmt: skip
            out.append(f"\n{name(b['base'])}")
            out.append(grid.table(lessons, LESSON_HITS))
    return finish("\n".join(out), name, [TOP3])


def bodies(doc: BodiesDocument) -> str:
    name = of_docs(doc["bases"])
    rows = [
        [name(b["base"]), b["reads"], b["tokens"], b["large_reads"], b["large_tokens"],
         formats.percent(b["large_share"])]
        for b in doc["bases"]
    ]  # fmt: skip
    headers = ["base", "reads", "tokens", "large reads", "large tokens", "large share"]
    out = [grid.table(rows, headers)]
    for b in doc["bases"]:
        if b["lessons"]:
            lessons = [
                [i["id"], i["reads"], i["tokens"], formats.size(i["body_bytes"]),
                 formats.percent(i["journal_share"])]
                for i in b["lessons"][:15]
            ]  # fmt: skip
            out.append(f"\n{name(b['base'])}")
            out.append(grid.table(lessons, ["lesson", "reads", "tokens", "body", "journal"]))
    return finish("\n".join(out), name)


def cost(doc: CostDocument) -> str:
    """One row per ritual; a base column when the rows are the lessons' own rituals."""
    name = of_docs(doc["rituals"])
    rows = [
        [
            r["pattern"],
            r["lesson"],
            r["calls"],
            r["untimed_calls"],
            r["total_hours"],
            r["hours_per_week"],
            formats.seconds(r["median_s"]),
            formats.seconds(r["p90_s"]),
            formats.percent(r["share_of_active_time"]),
        ]
        for r in doc["rituals"]
    ]
    headers = ["ritual", "lesson", "calls", "untimed", "hours", "h/week", "median", "p90",
               "active"]  # fmt: skip
    if name.names:
        rows = [[name(r.get("base") or "-"), *row] for r, row in zip(doc["rituals"], rows,
                                                                     strict=True)]  # fmt: skip
        headers = ["base", *headers]
    notes = ["untimed: calls without a result, not timed; active: share of session active time"]
    return finish(grid.table(rows, headers), name, notes)


def recalled(doc: RecalledDocument) -> str:
    out = [doc["status"]]
    if doc["evidence"]:
        out.append(
            grid.table(
                [
                    [
                        e["surfaced_at"],
                        e["kind"],
                        e["agent_run_id"],
                        e["tool_use_id"] or "-",
                        e["evidence"],
                        f"{e['transcript_file']}:{e['transcript_line']}",
                    ]
                    for e in doc["evidence"]
                ],  # fmt: skip
                ["surfaced at", "kind", "agent run", "tool call", "evidence", "transcript"],
            )
        )
    return "\n".join(out)
