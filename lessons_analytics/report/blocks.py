"""The report's richer blocks: a ranked action list, an expandable evidence list, and the
HTML of a table whose cells carry a tone (good/bad) and a link to their evidence.

Every text goes through the escape functions ``render.py`` hands in (``md`` for Markdown,
``inline`` for HTML): the blocks never build markup from data themselves.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lessons_analytics.markup import lit, lit_code
from lessons_analytics.report.numbers import SMALL

Escape = Callable[[str], str]

SMALL_NOTE = (
    f"{SMALL} fewer than 15 sessions or hits behind the share: read its direction only; "
    "the interval in brackets says how wide it is."
)


@dataclass
class ActionItem:
    text: str
    payoff: str
    anchor: str


@dataclass
class ActionList:
    """A ranked list of actions; ``title`` (linked to ``title_anchor``) names the base when
    the list stands in the page-wide overview."""

    items: list[ActionItem] = field(default_factory=list)
    title: str = ""
    title_anchor: str = ""

    def markdown(self, md: Escape) -> list[str]:
        lines = [f"**{md(self.title)}**", ""] if self.title else []
        lines += [
            f"{i}. {md(a.text)} **{md(a.payoff)}** (evidence: {md(a.anchor)})"
            for i, a in enumerate(self.items, 1)
        ]
        return [*lines, ""]

    def html(self, inline: Escape) -> str:
        rows = "".join(
            f'<li>{inline(a.text)} <strong class="payoff">{inline(a.payoff)}</strong> '
            f'<a class="ev" href="#{html.escape(a.anchor)}">evidence</a></li>'
            for a in self.items
        )
        title = ""
        if self.title:
            title = (
                f'<p class="actions-title"><a href="#{html.escape(self.title_anchor)}">'
                f"{inline(self.title)}</a></p>"
            )
        return f'{title}<ol class="actions">{rows}</ol>'


@dataclass
class Details:
    """An expandable list (``<details>`` in HTML, a labelled bullet list in Markdown)."""

    anchor: str
    summary: str
    items: list[str]
    more: int = 0  # items not listed (data.json keeps up to its own cap)

    def markdown(self, md: Escape) -> list[str]:
        lines = [f"*{md(self.anchor)}* — {md(self.summary)}", ""]
        lines += [f"- {md(i)}" for i in self.items]
        if self.more:
            lines.append(f"- … and {self.more} more (all counted in data.json)")
        return [*lines, ""]

    def html(self, inline: Escape) -> str:
        items = "".join(f"<li>{inline(i)}</li>" for i in self.items)
        if self.more:
            items += f"<li>… and {self.more} more (all counted in data.json)</li>"
        body = f"<ul>{items}</ul>" if items else "<p>No item.</p>"
        return (
            f'<details id="{html.escape(self.anchor)}" class="evidence">'
            f"<summary>{inline(self.summary)}</summary>{body}</details>"
        )


def evidence_block(anchor: str, summary: str, proof: dict[str, Any], limit: int = 30) -> Details:
    """An evidence list of ``evidence.py`` as a Details block (the first ``limit`` items)."""
    items = [_item(i) for i in proof["items"][:limit]]
    unit = proof["unit"][:-1] if proof["count"] == 1 else proof["unit"]  # 1 hit, 2 hits
    label = f"{summary}: {proof['count']:,} {unit}"
    return Details(anchor, label, items, proof["count"] - len(items))


def _item(item: dict[str, Any]) -> str:
    # every field is data (the note names lessons, commands, journal text): literal
    session = f"session {lit_code(item['session'][:8])}" if item["session"] else "no session"
    where = f" {lit_code(item['ref'])}" if item["ref"] else ""
    when = f" {lit(item['at'][:16].replace('T', ' '))}" if item["at"] else ""
    return f"{session}{when}{where} — {lit(item['note'])}"


def cell_html(text: str, inline: Escape, tone: str = "", link: str = "") -> str:
    """A table cell: its first line, the rest (the interval) smaller on a second line."""
    first, _, rest = text.partition("\n")
    content = inline(first)
    if link:
        content = f'<a href="#{html.escape(link)}">{content}</a>'
    if rest:
        content += f'<br><span class="sub">{inline(rest)}</span>'
    cls = f' class="{tone}"' if tone in ("good", "bad") else ""
    return f"<td{cls}>{content}</td>"


def table_html(
    headers: list[str],
    rows: list[list[str]],
    inline: Escape,
    tones: list[list[str]] | None = None,
    links: list[list[str]] | None = None,
) -> str:
    head = "".join(f"<th>{inline(h)}</th>" for h in headers)
    body = []
    for r, row in enumerate(rows):
        cells = [
            cell_html(
                c,
                inline,
                tones[r][i] if tones and i < len(tones[r]) else "",
                links[r][i] if links and i < len(links[r]) else "",
            )
            for i, c in enumerate(row)
        ]
        body.append("<tr>" + "".join(cells) + "</tr>")
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'<div class="table">{table}</div>'


CSS = """
td.good { color: #1e8449; font-weight: 600; }
td.bad { color: #c0392b; font-weight: 600; }
td .sub { color: var(--muted); font-size: 0.8em; white-space: nowrap; }
td a { color: inherit; text-decoration: underline dotted; }
p.actions-title { margin: 0.8rem 0 0; font-weight: 600; }
ol.actions { margin: 0.4rem 0 0.6rem; padding-left: 1.6rem; }
ol.actions li { margin: 0.35rem 0; }
ol.actions .payoff { color: #1a5276; white-space: nowrap; }
a.ev { font-size: 0.85rem; color: var(--accent); }
details.evidence { margin: 0.2rem 0; font-size: 0.85rem; }
details.evidence summary { cursor: pointer; color: var(--accent); }
details.evidence ul { margin: 0.3rem 0; padding-left: 1.2rem; }
details.evidence li { overflow-wrap: anywhere; }
details.evidence:target { background: #fef9e7; }
"""
