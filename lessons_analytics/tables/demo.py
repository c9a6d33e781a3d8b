"""The demo's printout: one row per base over the analyses, the rituals, the sleep signs."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from lessons_analytics import formats
from lessons_analytics.tables import grid
from lessons_analytics.tables.names import BaseNames, finish

if TYPE_CHECKING:  # the demo package is heavy and only the demo command needs it
    from lessons_analytics.demo.findings import DemoFindings

WIDTH = 100
LEGEND = [
    "head -20..60: index reads cut to their first 20-60 lines (they miss a late Active section)",
    "blind: sessions that read the index and saw no active lesson",
    "coverage: sessions that recalled an active lesson of their base",
    "hits recalled: of the hits (repeated failures) whose recall is known, those that came",
    "  although the lesson was recalled; unknown: hits whose recall the logs cannot tell",
    "large: share of the body tokens read from bodies over the large-body size",
]


def demo(found: DemoFindings) -> str:
    names = BaseNames(b["base"] for b in found.heads["bases"])
    coverage = {b["base"]: b for b in found.coverage["bases"]}
    hits = {b["base"]: b for b in found.hits["bases"]}
    bodies = {b["base"]: b for b in found.bodies["bases"]}
    rows = []
    for b in found.heads["bases"]:
        base = b["base"]
        c, h, d = coverage[base], hits[base], bodies[base]
        recall = h["by_recall"]
        known = h["hits"] - recall["unknown"]
        rows.append(
            [
                names(base),
                formats.share(b["head_20_60"], b["reads"]),
                formats.share(b["blind_sessions"], b["sessions_reading_index"]),
                formats.share(c["sessions_recalled"], c["sessions_in_scope"]),
                formats.share(recall["recalled"], known),
                recall["unknown"],
                f"{formats.integer(d['tokens'])} ({formats.percent(d['large_share'])} large)",
            ]
        )
    headers = ["base", "head -20..60", "blind", "coverage", "hits recalled", "unknown",
               "body tokens"]  # fmt: skip
    rituals = [
        [names(r["base"]), r["lesson"], r["pattern"], r["calls"], r["hours_per_week"],
         formats.seconds(r["median_s"])]
        for r in found.cost["rituals"]
    ]  # fmt: skip
    out = ["", grid.table(rows, headers), ""]
    out.append(grid.table(rituals, ["base", "lesson", "ritual", "calls", "h/week", "median"]))
    out.append("")
    for stats in found.stats:
        fired = [s.name for s in stats.signs if s.fired]
        line = (
            f"sleep signs {names(stats.base)}: {'due' if stats.sleep_due else 'not due'}"
            f" ({len(fired)} fired: {', '.join(fired) or 'none'})"
        )
        out.append(textwrap.fill(line, WIDTH, subsequent_indent="  ", break_on_hyphens=False))
    return finish("\n".join(out), names, LEGEND)
