"""The demo's printout: one row per base over the analyses, the rituals, the sleep signs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lessons_analytics import render

if TYPE_CHECKING:  # the demo package is heavy and only the demo command needs it
    from lessons_analytics.demo.findings import DemoFindings


def demo(found: DemoFindings) -> str:
    coverage = {b["base"]: b for b in found.coverage["bases"]}
    hits = {b["base"]: b for b in found.hits["bases"]}
    bodies = {b["base"]: b for b in found.bodies["bases"]}
    rows = []
    for b in found.heads["bases"]:
        base = b["base"]
        c, h, d = coverage[base], hits[base], bodies[base]
        rows.append(
            [
                Path(base).parent.name,
                render.share(b["head_20_60"], b["reads"]),
                render.share(b["blind_sessions"], b["sessions_reading_index"]),
                render.share(c["sessions_recalled"], c["sessions_in_scope"]),
                render.share(h["by_recall"]["recalled"], h["hits"]),
                f"{d['tokens']:,} ({render.fmt(d['large_share'])} large)",
            ]
        )
    out = [""]
    out.append(
        render.table(
            rows,
            [
                "base",
                "head -20..60 reads",
                "blind sessions",
                "coverage",
                "hits recalled",
                "body tokens",
            ],
        )
    )
    out.append("")
    out.append(
        render.table(
            [
                [
                    Path(r["base"]).parent.name,
                    r["lesson"],
                    r["pattern"],
                    r["calls"],
                    r["hours_per_week"],
                    r["median_s"],
                ]
                for r in found.cost["rituals"]
            ],
            ["base", "lesson", "ritual", "calls", "hours/week", "median s"],
        )
    )
    out.append("")
    for stats in found.stats:
        fired = [s.name for s in stats.signs if s.fired]
        out.append(
            f"sleep signs {Path(stats.base).parent.name}: "
            f"{'due' if stats.sleep_due else 'not due'} ({', '.join(fired) or 'none fired'})"
        )
    return "\n".join(out)
