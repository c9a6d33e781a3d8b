"""The report's blocks as Markdown (charts linked as PNG files) and as one self-contained
HTML page (charts embedded as data URIs, inline CSS, no external resource)."""

from __future__ import annotations

import base64
import html

from lessons_analytics.markup import inline_plain, inline_spans, md_inline, md_text
from lessons_analytics.report import blocks
from lessons_analytics.report.layout import Block, Chart, Heading, Layout, Para, Rich, Table


def _md_cell(text: str) -> str:
    return md_inline(text, cell=True)


def to_markdown(layout: Layout) -> str:
    # Every text goes through markup.md_inline: the layout's `code` and *emphasis* marks
    # survive, data never becomes HTML, a link or a table row.
    lines = [f"# {md_inline(layout.title)}", ""]
    for block in layout.blocks:
        if isinstance(block, Heading):
            lines += [f"{'#' * block.level} {md_inline(block.text)}", ""]
        elif isinstance(block, Para):
            prefix = {"note": "", "finding": "**Finding:** ", "empty": "> "}.get(block.kind, "")
            lines += [prefix + md_inline(block.text), ""]
        elif isinstance(block, Table):
            lines.append("| " + " | ".join(_md_cell(h) for h in block.headers) + " |")
            lines.append("|" + "|".join("---" for _ in block.headers) + "|")
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
            lines.append("")
        elif isinstance(block, Chart):
            lines += [f"![{md_text(block.alt)}]({block.name})", ""]
        elif isinstance(block, Rich):
            lines += block.markdown(_md_cell)
    return "\n".join(lines).rstrip() + "\n"


def _inline(text: str) -> str:
    """The layout's mini-language (markup.inline_spans) as HTML: `code` and *emphasis*
    become elements, every character of the text is escaped."""
    out = []
    for kind, content in inline_spans(text):
        escaped = html.escape(content, quote=False)
        out.append({"code": "<code>{}</code>", "em": "<em>{}</em>"}.get(kind, "{}").format(escaped))
    return "".join(out)


CSS = """
:root { color-scheme: light; --fg: #1c2833; --muted: #566573; --line: #d5d8dc; --accent: #2e86c1; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1rem; font: 16px/1.5 -apple-system,
  BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); }
h1 { font-size: 1.6rem; margin: 0.5rem 0; }
h2 { font-size: 1.3rem; margin-top: 2.2rem; padding-top: 0.6rem;
  border-top: 3px solid var(--accent); }
h3 { font-size: 1.05rem; margin-top: 1.6rem; }
p { margin: 0.5rem 0; }
p.note { color: var(--muted); font-size: 0.9rem; }
p.finding { background: #fdedec; border-left: 4px solid #c0392b; padding: 0.4rem 0.7rem; }
p.empty { background: #f4f6f7; border-left: 4px solid #aab7b8; padding: 0.4rem 0.7rem; }
code { font-size: 0.85em; background: #f4f6f7; padding: 0 0.2em; border-radius: 3px;
  overflow-wrap: anywhere; }
.table { overflow-x: auto; margin: 0.5rem 0 1rem; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; font-size: 0.85rem; min-width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 0.3rem 0.5rem; text-align: left;
  vertical-align: top; }
th { background: #eaf2f8; position: sticky; top: 0; }
td { font-variant-numeric: tabular-nums; }
figure { margin: 0.5rem 0 1rem; overflow-x: auto; -webkit-overflow-scrolling: touch; }
figure img { width: 100%; min-width: 34rem; height: auto; display: block; }
figcaption { color: var(--muted); font-size: 0.8rem; }
nav { font-size: 0.9rem; margin: 0.5rem 0 1rem; }
nav a { margin-right: 0.8rem; color: var(--accent); }
@media (max-width: 40rem) {
  body { padding: 0.6rem; font-size: 15px; }
  table { font-size: 0.78rem; }
  th, td { min-width: 6.5rem; }
  th:first-child, td:first-child { min-width: 4.5rem; }
}
"""


def to_html(layout: Layout, images: dict[str, bytes]) -> str:
    """One page; ``images`` maps each chart's file name to its PNG bytes."""
    anchors = [b for b in layout.blocks if isinstance(b, Heading) and b.level == 2 and b.anchor]
    parts = [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(inline_plain(layout.title))}</title>",
        f"<style>{CSS}{blocks.CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{_inline(layout.title)}</h1>",
    ]
    if anchors:
        links = " ".join(
            f'<a href="#{html.escape(h.anchor)}">{html.escape(inline_plain(h.text))}</a>'
            for h in anchors
        )
        parts.append(f"<nav>{links}</nav>")
    for block in layout.blocks:
        parts.append(_html_block(block, images))
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _html_block(block: Block, images: dict[str, bytes]) -> str:
    if isinstance(block, Heading):
        anchor = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
        return f"<h{block.level}{anchor}>{_inline(block.text)}</h{block.level}>"
    if isinstance(block, Para):
        cls = f' class="{block.kind}"' if block.kind else ""
        return f"<p{cls}>{_inline(block.text)}</p>"
    if isinstance(block, Table):
        return blocks.table_html(block.headers, block.rows, _inline, block.tones, block.links)
    if isinstance(block, Rich):
        return block.html(_inline)
    data = base64.b64encode(images[block.name]).decode("ascii")
    alt = html.escape(block.alt)
    image = f'<img alt="{alt}" src="data:image/png;base64,{data}">'
    return f"<figure>{image}<figcaption>{alt}</figcaption></figure>"
