"""markup.py, the one escaping helper of the Markdown outputs, through a real renderer."""

from __future__ import annotations

import pytest

from lessons_analytics.markup import md_code, md_inline, md_link, md_text

markdown_it = pytest.importorskip("markdown_it")
MD = markdown_it.MarkdownIt("commonmark").enable("table")

HOSTILE = [
    "<script>alert(1)</script>",
    "[x](javascript:alert(1))",
    "![x](https://evil.example/p.png?d=1)",
    "<javascript:alert(1)>",
    '<img src=x onerror="alert(1)">',
    "&lt;script&gt; &#x3C;script&#x3E;",
    "**bold** __b__ *e* _e_ ~~s~~",
    "`code` ``more``",
    "a\n# heading\n| a | b |\n|---|---|\n> quote",
    "| cell | break |",
    "\\<script>",
    "<!-- comment -->",
    "1. list\n- item",
]


def _tokens(text: str) -> list:  # type: ignore[type-arg]
    return [t for tok in MD.parse(text) for t in [tok, *(tok.children or [])]]


@pytest.mark.parametrize("data", HOSTILE)
def test_text_renders_as_the_same_characters_and_nothing_else(data: str) -> None:
    source = f"before {md_text(data)} after"
    tokens = _tokens(source)
    assert [t.type for t in MD.parse(source)] == ["paragraph_open", "inline", "paragraph_close"]
    kinds = {t.type for t in tokens[1].children or []}
    assert kinds == {"text"}, kinds  # no html, link, image, emphasis, code
    shown = "".join(t.content for t in tokens[1].children or [])
    assert shown == "before " + " ".join(data.split("\n")) + " after"


@pytest.mark.parametrize("data", HOSTILE)
def test_code_span_shows_its_content_literally(data: str) -> None:
    tokens = _tokens(f"x {md_code(data)} y")
    code = [t.content for t in tokens if t.type == "code_inline"]
    assert code == [" ".join(data.split("\n"))]
    assert not [t for t in tokens if t.type.startswith(("html", "link", "image"))]


@pytest.mark.parametrize("data", HOSTILE)
def test_a_table_cell_stays_one_cell(data: str) -> None:
    row = f"| {md_inline('`' + data + '`', cell=True)} | {md_inline(data, cell=True)} |"
    table = "| a | b |\n|---|---|\n" + row + "\n"
    tokens = _tokens(table)
    assert sum(t.type == "td_open" for t in tokens) == 2
    assert sum(t.type == "tr_open" for t in tokens) == 2  # header and the one row
    assert "<script" not in MD.render(table)


def test_inline_keeps_the_layouts_own_marks_only() -> None:
    tokens = _tokens(md_inline("see `L-1` *direction only* <b>x</b> [a](javascript:b)"))
    kinds = [t.type for t in tokens]
    assert "code_inline" in kinds and "em_open" in kinds
    assert not [k for k in kinds if k.startswith(("html", "link"))]


@pytest.mark.parametrize(
    ("target", "linked"),
    [
        ("/home/u/p/x.jsonl#L3", True),
        ("reports/2026-W48/report.html", True),
        ("https://docs.example.org/a", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        ("data:text/html;base64,PHNjcmlwdD4=", False),
        ("//evil.example/x", False),
        ("vbscript:x", False),
    ],
)
def test_links_only_to_paths_and_http(target: str, linked: bool) -> None:
    tokens = _tokens(md_link("label", target))
    hrefs = [t.attrGet("href") for t in tokens if t.type == "link_open"]
    assert bool(hrefs) is linked
    if not linked:
        assert [t.content for t in tokens if t.type == "code_inline"] == [target]
