"""The first screen of each base ("Do this first", the headline numbers with their
evidence and footnotes) and the page-wide notes, as layout blocks."""

from __future__ import annotations

from typing import Any

from lessons_analytics.markup import lit
from lessons_analytics.report.actions import MAX_ACTIONS
from lessons_analytics.report.blocks import SMALL_NOTE, ActionItem, ActionList, evidence_block
from lessons_analytics.report.layout import Heading, Layout, Para, Table, slug
from lessons_analytics.report.numbers import SMALL, fmt_delta, fmt_number, fmt_share, tone

SUPERSCRIPTS = "¹²³⁴⁵⁶⁷⁸⁹"
OVERVIEW_ACTIONS = 3

# What each headline share is a share of, by (document, denominator): the footnotes that
# explain why two numbers side by side can disagree.
DENOMINATORS: dict[tuple[str, str], tuple[str, str]] = {
    ("coverage", "sessions_in_scope"): (
        "sessions in scope",
        "of the sessions in scope: sessions of this base started this week while it has an "
        "active lesson. Recalled = the session read an active lesson's body or got its id "
        "quoted, anywhere in the session, subagents included.",
    ),
    ("heads", "sessions_reading_index"): (
        "sessions reading the index",
        "of the sessions that read INDEX.md this week (by the read's time). A blind session "
        "saw no Active row in any of its reads; it can still recall a lesson by opening its "
        "body directly, so a high recall coverage and many blind sessions are both true at "
        "once.",
    ),
    ("heads", "reads"): ("index reads", "of the index reads (reads, not sessions)."),
    ("hits", "hits"): (
        "hits",
        "of all hits this week, those without a transcript (unknown) included: recalled + "
        "index row only + not recalled + unknown = hits. The ladder's recalled share counts "
        "only the hits with a transcript, so it is higher.",
    ),
    ("bodies", "reads"): ("body reads", "of the lesson-body reads (reads, not sessions)."),
}


def first_screen(out: Layout, data: dict[str, Any], s: dict[str, Any]) -> None:
    """ "Do this first": the ranked actions, their payoff and their evidence."""
    tag = slug(s["name"])
    first = s["first"]
    out.add(Heading(3, "Do this first", f"{tag}-first"))
    shown = first["actions"][:MAX_ACTIONS]
    if not shown:
        out.add(Para("Nothing to do first: no action's condition holds in the trend window."))
    else:
        out.add(ActionList([ActionItem(a["sentence"], _payoff(a), _anchor(tag, a)) for a in shown]))
    rest = len(first["actions"]) - len(shown)
    r = first["rates"]
    weeks = data["trend_weeks"]
    out.add(
        Para(
            f"Ranked by payoff in session hours per week over {weeks[0]}–{weeks[-1]} "
            f"({r['weeks']} weeks): a ritual by its measured hours; a hit at "
            f"{fmt_number(r['hours_per_hit'], 2)} h; a blind session at its expected hits "
            f"({r['hits_per_exposed_session']:.2f} per exposed session); "
            f"{r['tokens_per_hit']:,.0f} body tokens as one hit."
            + (f" {rest} more action(s) in data.json." if rest else ""),
            "note",
        )
    )
    for a in shown:
        out.add(evidence_block(_anchor(tag, a), f"Evidence for {a['rank']}", a["evidence"]))


def _anchor(tag: str, action: dict[str, Any]) -> str:
    return f"ev-{tag}-do-{action['rank']}"


def _payoff(action: dict[str, Any]) -> str:
    value = action["payoff_hours_per_week"]
    return f"≈ {value:.2f} h/week" if value < 10 else f"≈ {value:,.0f} h/week"


def _of(total: int, noun: str) -> str:
    """``17 sessions in scope``, ``1 session in scope``."""
    if total != 1:
        return f"{total:,} {noun}"
    first, _, rest = noun.partition(" ")
    return f"1 {first.removesuffix('s')}{' ' + rest if rest else ''}"


def headline_section(out: Layout, s: dict[str, Any], data: dict[str, Any]) -> None:
    """The headline numbers: each with its denominator (a footnote says why two differ),
    this week linked to its evidence, the change coloured by whether it is good, then
    last week."""
    from lessons_analytics.report.data import HEADLINES

    tag = slug(s["name"])
    dens = {key: (doc, den) for key, _, doc, _, den in HEADLINES}
    marks: dict[tuple[str, str], str] = {}
    rows, tones, links = [], [], []
    for h in s["headline"]:
        key = h["key"]
        doc, den = dens.get(key, ("", ""))
        label = h["label"]
        if den and (doc, den) in DENOMINATORS:
            mark = marks.setdefault((doc, den), SUPERSCRIPTS[len(marks)])
            label += f"{mark}\nof {_of(h['total'], DENOMINATORS[(doc, den)][0])}"
        if h["kind"] == "share":
            value = fmt_share(h)
            prev = f"{h['previous_count']}/{h['previous_total']}" + (
                f" = {100 * h['previous']:.1f} %" if h["previous"] is not None else ""
            )
            change = fmt_delta(h, is_share=True, key=key)
        else:
            digits = 2 if h["kind"] == "hours" else 0
            value = fmt_number(h["value"], digits) + (
                f" ({h['calls']} calls)" if h["kind"] == "hours" else ""
            )
            prev = fmt_number(h["previous"], digits)
            change = fmt_delta(h, is_share=False, digits=digits, key=key)
        proof = s["evidence"].get(key)
        rows.append([label, value, change, prev])
        tones.append(["", "", tone(key, h["delta"]), ""])
        links.append(["", f"ev-{tag}-{key}" if proof and proof["count"] else "", "", ""])
    out.add(Heading(3, f"Headline numbers, {data['week']} vs {data['previous_week']}"))
    out.add(
        Table(
            ["number", data["week"], "change", data["previous_week"]],
            rows,
            tones=tones,
            links=links,
        )
    )
    notes = [f"{mark} {DENOMINATORS[k][1]}" for k, mark in marks.items()]
    if notes:
        out.add(Para(" ".join(notes), "note"))
    for h in s["headline"]:
        if s["evidence"].get(h["key"], {}).get("count"):
            out.add(
                evidence_block(
                    f"ev-{tag}-{h['key']}", f"Evidence: {h['label']}", s["evidence"][h["key"]]
                )
            )


LADDER_NOTE = (
    "Different denominators: hits counts every hit of the lesson up to the end of the week; "
    "the recalled share is of the hits with a transcript only (a hit whose session is "
    "unknown cannot say whether the lesson was recalled)."
)

PORTFOLIO_NOTE = (
    "Different denominators: recall coverage is a share of sessions in scope; hits is a "
    "count of hits; hits while recalled is a share of those hits (hits without a transcript "
    "included). Each base's headline table gives every denominator."
)


def small_sample_notes(layout: Layout) -> None:
    """Right after the last block of each section (between headings) that shows a
    small-sample share, one note saying what the mark means: once, not in every cell."""
    blocks = list(layout.blocks)
    last: int | None = None
    marks: list[int] = []
    for i, block in enumerate(blocks):
        if isinstance(block, Heading):
            if last is not None:
                marks.append(last)
            last = None
        elif _shows_small(block):
            last = i
    if last is not None:
        marks.append(last)
    for i in reversed(marks):
        blocks.insert(i + 1, Para(SMALL_NOTE, "note"))
    layout.blocks = blocks


def _shows_small(block: Any) -> bool:
    if isinstance(block, Table):
        return any(SMALL in cell for row in block.rows for cell in row)
    # a share's mark follows its percentage ("0.0 %†"); the page's how-to-read names it too
    return isinstance(block, Para) and f"%{SMALL}" in block.text


def overview(out: Layout, data: dict[str, Any]) -> None:
    """The page's first screen: the top actions of every base, each with its payoff and a
    link to its evidence; the base name links to its full list."""
    out.add(Heading(2, "Do this first", "first"))
    if not data["bases"]:
        out.add(Para("No base to act on.", "empty"))
        return
    for s in data["bases"]:
        tag = slug(s["name"])
        top = s["first"]["actions"][:OVERVIEW_ACTIONS]
        items = [ActionItem(a["sentence"], _payoff(a), _anchor(tag, a)) for a in top]
        if not items:
            out.add(Para(f"*{lit(s['name'])}*: nothing to do first."))
            continue
        out.add(ActionList(items, lit(s["name"]), f"{tag}-first"))
    out.add(
        Para(
            f"The first {OVERVIEW_ACTIONS} actions of each base; payoff in session hours per "
            "week, converted as each base's own Do this first says.",
            "note",
        )
    )
