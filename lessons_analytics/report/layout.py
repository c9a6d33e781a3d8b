"""The report as a list of blocks (headings, paragraphs, tables, charts), built from the
data of ``data.py``; ``render.py`` turns the same blocks into Markdown and HTML.

Texts (headings, paragraphs, cells, list items) are in the layout's mini-language
(``markup.inline_spans``: `code` and *emphasis*); every piece of data (lesson ids, classes,
rules, targets, statuses, base names and paths, patterns, commits) enters one through
``markup.lit`` or ``markup.lit_code``, so data never opens a mark, a cell or a line. Chart
alt texts are plain text (escaped as a whole by the renderer), so they take data as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import polars as pl

from lessons_analytics.markup import lit, lit_code
from lessons_analytics.proportions import wilson
from lessons_analytics.report.numbers import fmt_number, fmt_share
from lessons_analytics.report.numbers import share as _share

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Para:
    text: str
    kind: str = ""  # "" | "note" | "finding" | "empty"


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    tones: list[list[str]] | None = None  # per cell "good" | "bad" | "" (HTML colour)
    links: list[list[str]] | None = None  # per cell the anchor of its evidence, or ""


@dataclass
class Chart:
    """A chart drawn only when its PNG is needed: ``draw`` names its function in
    ``charts.py`` and ``args`` are that function's arguments, so building the layout never
    imports matplotlib and a report can reuse the PNG of an earlier run (``chartcache.py``)."""

    name: str  # PNG file name
    alt: str
    draw: str
    args: tuple[Any, ...]

    @property
    def figure(self) -> Figure:
        from lessons_analytics.report import charts

        figure: Figure = getattr(charts, self.draw)(*self.args)
        return figure


@runtime_checkable
class Rich(Protocol):
    """A block that renders itself (blocks.py) through the escape function it is given."""

    def markdown(self, md: Callable[[str], str]) -> list[str]: ...

    def html(self, inline: Callable[[str], str]) -> str: ...


Block = Heading | Para | Table | Chart | Rich


@dataclass
class Layout:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    @property
    def charts(self) -> list[Chart]:
        return [b for b in self.blocks if isinstance(b, Chart)]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "base"


def build_layout(data: dict[str, Any]) -> Layout:
    out = Layout(f"Lessons audit — {data['week']}")
    out.add(
        Para(
            f"Week {data['week']}: {data['since']} to {data['until']} (UTC). "
            f"Generated {data['generated_at']}; ages measured as of {data['as_of']}."
        ),
        Para(
            "How to read: every share is `count/total = %` with its 95 % Wilson interval "
            "below it; a share over fewer than 15 sessions or hits is marked † (direction "
            "only). Arrows compare "
            f"with {data['previous_week']} (▲ up, ▼ down, → unchanged; pp = percentage points; "
            "green and *better*, red and *worse* say whether the change is good). "
            "Trend charts cover the weeks "
            f"{data['trend_weeks'][0]}–{data['trend_weeks'][-1]}; dashed purple lines mark the "
            "commits that changed the base.",
            "note",
        ),
    )
    if not data["bases"]:
        out.add(Para("The warehouse knows no lesson base: nothing to report.", "empty"))
        return out
    if not data["has_data"]:
        out.add(
            Para(
                f"No data for {data['week']}: no session, hit, index or body read, or "
                "ritual call in any base this week.",
                "empty",
            )
        )
    from lessons_analytics.report.first_screen import overview

    overview(out, data)
    _portfolio(out, data)
    for section in data["bases"]:
        _base(out, data, section)
    from lessons_analytics.report.first_screen import small_sample_notes

    small_sample_notes(out)
    return out


def _portfolio(out: Layout, data: dict[str, Any]) -> None:
    out.add(Heading(2, "Portfolio: all bases", "portfolio"))
    rows = []
    for r in data["portfolio"]["rows"]:
        rows.append(
            [
                lit(r["name"]),
                fmt_share(r["coverage"]),
                fmt_number(r["hits"]),
                fmt_share(r["hits_recalled"]),
                fmt_number(r["body_tokens"]),
                fmt_number(r["ritual_hours"], 2),
                str(len(r["signs_fired"])),
                _yes(r["sleep_due"]),
                lit(", ".join(r["ladder"])) or "–",
                f"{r['added']} / {r['retired']}" + (" (only grows)" if r["only_grows"] else ""),
            ]
        )
    out.add(
        Table(
            [
                "base",
                "recall coverage",
                "hits",
                "hits while recalled",
                "body tokens",
                "ritual h",
                "signs fired",
                "sleep due",
                "ladder",
                "added / retired (all time)",
            ],
            rows,
        )
    )
    from lessons_analytics.report.first_screen import PORTFOLIO_NOTE

    out.add(Para(PORTFOLIO_NOTE, "note"))
    frame = pl.DataFrame(
        [
            {
                "name": r["name"],
                "count": r["coverage"]["count"],
                "total": r["coverage"]["total"],
                "low": (r["coverage"]["ci95"] or [0, 0])[0],
                "high": (r["coverage"]["ci95"] or [0, 0])[1],
            }
            for r in data["portfolio"]["rows"]
        ]
    )
    if frame.height and frame["total"].sum():
        out.add(
            Chart(
                "portfolio-coverage.png",
                "Recall coverage per base this week",
                "portfolio_chart",
                (frame,),
            )
        )
    out.add(Heading(3, "Mechanism families found by several bases"))
    for key, label in (("classes", "lesson class"), ("triggers", "shared trigger")):
        families = data["portfolio"][key]
        if not families:
            out.add(Para(f"No {label} is shared by two or more bases."))
            continue
        out.add(
            Table(
                [label, "bases", "lessons"],
                [
                    [
                        lit(f["name"]),
                        str(len(f["bases"])),
                        lit(
                            "; ".join(f"{b['base']}: {', '.join(b['lessons'])}" for b in f["bases"])
                        ),
                    ]
                    for f in families
                ],
            )
        )


def _yes(value: bool | None) -> str:
    return "–" if value is None else ("yes" if value else "no")


def _base(out: Layout, data: dict[str, Any], s: dict[str, Any]) -> None:
    tag = slug(s["name"])
    weeks = data["trend_weeks"]
    notes = (
        pl.DataFrame(s["annotations"], schema={"week": pl.Utf8, "label": pl.Utf8})
        if s["annotations"]
        else None
    )
    out.add(Heading(2, f"Base: {lit(s['name'])}", tag), Para(lit_code(s["base"]), "note"))
    if not s["has_data"]:
        out.add(
            Para(
                f"No data for {lit(s['name'])} in {data['week']}: no session, hit, index or body "
                "read, or ritual call this week. The ladder, the signs and the history below "
                "still hold.",
                "empty",
            )
        )
    from lessons_analytics.report.effect_section import effect_section, interventions_section
    from lessons_analytics.report.first_screen import first_screen, headline_section

    first_screen(out, data, s)
    headline_section(out, s, data)
    effect_section(out, s)
    interventions_section(out, s)
    _ladder(out, s, weeks)
    trend = s["trend"]
    out.add(Heading(3, "Recall coverage by week"))
    cov = pl.DataFrame(trend["coverage_by_week"]) if trend["coverage_by_week"] else pl.DataFrame()
    if cov.height:
        cov = cov.with_columns(
            pl.struct("sessions_recalled", "sessions_in_scope")
            .map_elements(
                lambda r: list(
                    wilson(r["sessions_recalled"], r["sessions_in_scope"]) or (0.0, 0.0)
                ),
                return_dtype=pl.List(pl.Float64),
            )
            .alias("ci")
        )
        cov = cov.with_columns(
            pl.col("ci").list.get(0).alias("low"), pl.col("ci").list.get(1).alias("high")
        )
        out.add(
            Chart(
                f"{tag}-coverage.png",
                f"Recall coverage by week, {s['name']}",
                "coverage_chart",
                (cov, weeks, notes),
            )
        )
    else:
        out.add(Para("No session in scope in the trend window.", "empty"))
    _hits(out, s, tag, weeks, notes)
    _heads(out, s, tag)
    _bodies(out, s, tag)
    _rituals(out, s, tag, weeks, notes)
    _signs(out, s)
    _life(out, s, tag, weeks)


def _ladder(out: Layout, s: dict[str, Any], weeks: list[str]) -> None:
    out.add(Heading(3, "The ladder: failing although recalled"))
    if not s["ladder"]:
        out.add(Para("No lesson failed two or more times while recalled."))
        return
    out.add(
        Para(
            "These lessons were in the agent's context and the failure happened anyway: "
            "prose is not holding, they need structure (a check, a hook, a gate).",
            "finding",
        )
    )
    shown = set(weeks)
    rows = []
    for r in s["ladder"]:
        per_week: dict[str, list[int]] = {}
        for hit in r["timeline"]:
            if hit["week"] in shown:
                slot = per_week.setdefault(hit["week"], [0, 0])
                slot[0] += hit["recall"] == "recalled"
                slot[1] += 1
        line = ", ".join(f"{w[-3:]} {a}/{b}" for w, (a, b) in sorted(per_week.items())) or "–"
        rows.append(
            [
                lit(r["id"]),
                lit(r["status"] or "–"),
                lit(r["class"] or "–"),
                str(r["hits"]),
                fmt_share(r["recalled_share"]),
                str(r["this_week_recalled"]),
                line,
            ]
        )
    out.add(
        Table(
            [
                "lesson",
                "status",
                "class",
                "hits",
                "recalled (of hits with a transcript)",
                "recalled this week",
                "recalled/hits by week",
            ],
            rows,
        )
    )
    from lessons_analytics.report.first_screen import LADDER_NOTE

    out.add(Para(LADDER_NOTE, "note"))
    for r in s["ladder"]:
        out.add(
            Para(
                f"*{lit(r['id'])}* rule: {lit(r['rule'] or '(no Rule: line)')}"
                + (f" — target: {lit(r['target'])}" if r["target"] else "")
            )
        )


def _hits(
    out: Layout, s: dict[str, Any], tag: str, weeks: list[str], notes: pl.DataFrame | None
) -> None:
    trend = s["trend"]
    out.add(Heading(3, "Hit attribution"))
    frame = pl.DataFrame(trend["hits_by_week"]) if trend["hits_by_week"] else pl.DataFrame()
    if frame.height and frame.filter(pl.col("week").is_in(weeks)).height:
        out.add(
            Chart(
                f"{tag}-hits-by-week.png",
                f"Hits by week and recall status, {s['name']}",
                "hits_by_week_chart",
                (frame, weeks, notes),
            )
        )
    else:
        out.add(Para("No hit in the trend window.", "empty"))
    caught = pl.DataFrame(trend["hits_by_caught"]) if trend["hits_by_caught"] else pl.DataFrame()
    if caught.height:
        out.add(
            Chart(
                f"{tag}-hits-by-caught.png",
                f"Hits by catcher, trend window, {s['name']}",
                "hits_by_caught_chart",
                (caught,),
            )
        )
    doc = s["documents"]["hits"]
    if not doc.get("hits"):
        out.add(Para("No hit this week.", "empty"))
        return
    kinds = ("recalled", "index_only", "not_recalled", "unknown")
    rows = [
        [lit(caught_by), *[str(by.get(k, 0)) for k in kinds], str(sum(by.values()))]
        for caught_by, by in _by_caught(doc).items()
    ]
    rows.append(
        [
            "all",
            *[fmt_share(_share(doc["by_recall"][k], doc["hits"])) for k in kinds],
            str(doc["hits"]),
        ]
    )
    out.add(
        Para("This week, by catcher and recall status:"), Table(["caught by", *kinds, "hits"], rows)
    )
    if doc["disagreements"]:
        out.add(
            Para(
                f"{len(doc['disagreements'])} hit(s) whose journal `recalled:` disagrees with the "
                "transcript: "
                + ", ".join(
                    f"{lit(d['lesson_id'])} (line {d['line_no']})"
                    for d in doc["disagreements"][:10]
                ),
                "note",
            )
        )


def _by_caught(doc: dict[str, Any]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for recall, by in doc["recall_by_caught"].items():
        for caught, n in by.items():
            out.setdefault(caught, {})[recall] = n
    return dict(sorted(out.items(), key=lambda kv: -sum(kv[1].values())))


def _heads(out: Layout, s: dict[str, Any], tag: str) -> None:
    trend = s["trend"]
    out.add(Heading(3, "Index reads: the head -N histogram"))
    frame = pl.DataFrame(trend["heads_histogram"]) if trend["heads_histogram"] else pl.DataFrame()
    line = trend["active_heading_line"]
    if not frame.height:
        out.add(Para("No head -N read of the index in the trend window.", "empty"))
    else:
        short = frame.filter(pl.col("head_n") < line)["reads"].sum() if line else 0
        total = int(frame["reads"].sum())
        out.add(
            Chart(
                f"{tag}-head-histogram.png",
                f"head -N reads of INDEX.md, {s['name']}",
                "heads_histogram_chart",
                (frame, line),
            ),
            Para(
                f"Trend window: {total} head reads; {short} asked for fewer lines than the "
                f"Active heading's current line ({line})."
            ),
        )
    doc = s["documents"]["heads"]
    if doc.get("reads"):
        out.add(
            Para(
                f"This week: {doc['reads']} index reads ({doc['head_reads']} by head, "
                f"{doc['prefix_reads']} prefix reads); blind reads "
                f"{fmt_share(_share(doc['blind_reads'], doc['reads']))}, truncated "
                f"{fmt_share(_share(doc['truncated_reads'], doc['reads']))}."
            )
        )


def _bodies(out: Layout, s: dict[str, Any], tag: str) -> None:
    doc = s["documents"]["bodies"]
    out.add(Heading(3, "Top lessons by body-read tokens this week"))
    if not doc.get("reads"):
        out.add(Para("No lesson body was read this week.", "empty"))
        return
    lessons = pl.DataFrame(doc["lessons"])
    out.add(
        Chart(
            f"{tag}-body-tokens.png",
            f"Body-read tokens per lesson, {s['name']}",
            "bodies_chart",
            (lessons,),
        )
    )
    rows = [
        [
            lit(r["id"]),
            str(r["reads"]),
            f"{r['tokens']:,}",
            f"{r['body_bytes']:,}",
            "–" if r["journal_share"] is None else f"{100 * r['journal_share']:.0f} %",
            str(r["sessions"]),
        ]
        for r in doc["lessons"][:10]
    ]
    out.add(
        Table(["lesson", "reads", "tokens", "body bytes", "journal share", "sessions"], rows),
        Para(
            f"{doc['reads']} reads, {doc['tokens']:,} tokens; large bodies took "
            f"{fmt_share(_share(doc['large_reads'], doc['reads']))} of the reads and "
            f"{doc['large_tokens']:,} tokens."
        ),
    )


def _rituals(
    out: Layout, s: dict[str, Any], tag: str, weeks: list[str], notes: pl.DataFrame | None
) -> None:
    out.add(Heading(3, "Ritual time"))
    trend = s["trend"]["rituals"]
    if not trend:
        out.add(Para("No lesson of this base declares a ritual.", "note"))
        return
    rows = [
        {"ritual": f"{r['lesson']}: {r['pattern']}", "week": w["week"], "hours": w["hours"]}
        for r in trend
        for w in r["by_week"]
    ]
    if rows:
        out.add(
            Chart(
                f"{tag}-ritual-hours.png",
                f"Ritual hours by week, {s['name']}",
                "rituals_chart",
                (pl.DataFrame(rows), weeks, notes),
            )
        )
    table = [
        [
            lit(r["lesson"] or "–"),
            lit_code(r["pattern"]),
            str(r["calls"]),
            str(r["untimed_calls"]),
            fmt_number(r["total_hours"], 2),
            fmt_number(r["median_s"]),
            fmt_number(r["p90_s"]),
            "–"
            if r["share_of_active_time"] is None
            else f"{100 * r['share_of_active_time']:.1f} %",
        ]
        for r in s["documents"]["cost"]
    ]
    out.add(
        Para("This week:"),
        Table(
            [
                "lesson",
                "ritual",
                "calls",
                "untimed",
                "hours",
                "median s/call",
                "p90 s/call",
                "share of active time",
            ],
            table,
        ),
    )


def _signs(out: Layout, s: dict[str, Any]) -> None:
    signs = s["signs"]
    out.add(Heading(3, "Sleep signs"))
    if not signs["available"]:
        out.add(Para(f"Signs not available: {lit(signs['error'])}", "empty"))
        return
    out.add(
        Para(
            f"As of {signs['as_of']}: sleep {'is due' if signs['sleep_due'] else 'is not due'}.",
            "finding" if signs["sleep_due"] else "",
        )
    )
    rows = []
    for g in sorted(signs["signs"], key=lambda g: not g["fired"]):
        rows.append(
            [
                lit(g["name"]),
                "FIRED" if g["fired"] else "–",
                lit(_value(g["value"])),
                lit(_value(g["threshold"])),
                lit(", ".join(g["lessons"][:8])) + (" …" if len(g["lessons"]) > 8 else "") or "–",
            ]
        )
    out.add(Table(["sign", "fired", "value", "threshold", "lessons"], rows))


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_value(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.2f}" if value < 100 else f"{value:,.0f}"
    return "–" if value is None else str(value)


def _life(out: Layout, s: dict[str, Any], tag: str, weeks: list[str]) -> None:
    life = s["life"]
    out.add(Heading(3, "Life of the base (git history)"))
    if not life["from_git"]:
        out.add(
            Para(
                "The base is not in git: the warehouse holds no history of its lessons "
                "(no additions or status changes to show).",
                "note",
            )
        )
    frame = pl.DataFrame(life["by_week"])
    if frame.height and frame.select(pl.exclude("week")).sum_horizontal().sum():
        out.add(
            Chart(
                f"{tag}-life.png",
                f"Lessons added, promoted, deferred, retired by week, {s['name']}",
                "life_chart",
                (frame,),
            )
        )
    else:
        out.add(Para("No lesson was added or changed status in the trend window.", "empty"))
    if life["only_grows"]:
        out.add(Para("This base only grows: no lesson was ever retired or deferred.", "finding"))
    changes = [e for e in life["events"] if e["kind"] != "added" or e["week"] in weeks]
    rows = [
        [
            e["week"],
            lit(e["lesson_id"]),
            e["kind"] + (f" (from {lit(e['from'])})" if e.get("from") else ""),
            lit(e["status"] or "–"),
            lit(e["commit"]),
            lit(e.get("where") or "–"),
        ]
        for e in changes[-20:]
    ]
    if rows:
        out.add(
            Table(["week", "lesson", "change", "status", "commit", "where the remedy went"], rows)
        )
    if s["annotations"]:
        out.add(
            Para(
                "Commits marked on the trend charts: "
                + "; ".join(
                    f"{a['week']} {lit(a['label'])} ({lit(a['commit'])})" for a in s["annotations"]
                )
                + "."
            )
        )
