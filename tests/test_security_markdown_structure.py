"""Data never changes the structure of report.md: two real workspaces of the same shape
(two git bases sharing a class and a trigger, a lesson on the ladder, a ritual, a retired
lesson, hits, evidence), one with plain words in every text field, one with hostile markup
in the same fields. Rendered with markdown-it-py, both give the same token structure
(headings, tables and their column counts, emphasis, code, links, no HTML), and every
hostile string shows literally in the hostile one.

Where the data sits on one line of its file (an INDEX.md row, a journal line, a path), the
hostile text is the one-line form (its newline a space); YAML fields get the newline too.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lessons_analytics.cli import cli
from lessons_analytics.markup import inline_spans, lit, lit_code
from lessons_analytics.report import last_complete_week, week_bounds
from tests.support.basebuilder import commit, git
from tests.support.transcripts import ClaudeSession, numbered, reset_ids

markdown_it = pytest.importorskip("markdown_it")
MD = markdown_it.MarkdownIt("commonmark").enable("table")

PARTS = ["`", "*a*", "_b_", "[x](javascript:alert(1))", "|", "<script>", "\n## Fake"]
HOSTILE = " ".join(PARTS)
# the same shape without any markup character: same words, same lengths, no specials
BENIGN = " ".join("w" * len(p.strip()) for p in PARTS)


def _one_line(text: str) -> str:
    return " ".join(text.split("\n"))


def _yaml(value: Any) -> str:
    return json.dumps(value)  # a JSON string or list is a YAML flow scalar


def _lesson(lid: str, data: str, status: str, hits: list[str]) -> str:
    lines = [
        "---",
        f"id: {lid}",
        "addressee: all-agents",
        f"trigger: {_yaml(['make', 'shared ' + data])}",
        f"scope: {_yaml('committing ' + data)}",
        f"target: {_yaml('target ' + data)}",
        f"class: {_yaml('class ' + data)}",
        f"status: {status}",
        f"ritual: {_yaml('^make test|' + data)}",
        "created: 2026-10-01",
        "evidence:",
        "  helped: null",
        "---",
        f"Rule: instead of committing straight away, run `make test` first. {_one_line(data)}",
        "Why: it shipped.",
        "",
    ]
    if hits:
        lines += ["## Hits", *hits, ""]
    return "\n".join(lines)


def _index(data: str) -> str:
    row = _one_line(data).replace("|", "/")  # a row's own cells: the base's format, not data
    return "\n".join([
        "# Lessons: structure",
        "",
        "## Active",
        "| id | addressee | triggers | target |",
        "|---|---|---|---|",
        f"| L-0001 | all-agents | make | target {row} |",
        "",
    ]) + "\n"  # fmt: skip


def _session_id(n: int, k: int) -> str:
    return f"5e55{n:02d}{k:02d}-1111-4111-8111-111111111111"


def _base(root: Path, n: int, data: str, day: Any) -> Path:
    """One project (its folder name carries the data) with one base and three sessions."""
    flat = _one_line(data)
    project = root / f"proj{n} {flat}"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    ts = lambda h, m=0: f"{day.isoformat()}T{h:02d}:{m:02d}:00Z"  # noqa: E731
    hits = [
        f"- {day.isoformat()} · where: {flat} · what: missed {flat} · caught: gate {flat}"
        f" · recalled: yes · defect: bug · session: {_session_id(n, k)} · ts: {ts(10 + k, 30)}"
        for k in range(3)
    ]
    lesson1 = _lesson("L-0001", data, "active", hits)
    commit(project, "2026-10-01T09:00:00Z", {
        "LESSONS/INDEX.md": _index(data),
        "LESSONS/L-0001-skipped.md": lesson1,
        "LESSONS/L-0002.md": _lesson("L-0002", data, "active", []),
        "LESSONS/L-0003.md": _lesson(_yaml("L-0003 " + data), data, "candidate", []),
    }, message=f"base {flat}")  # fmt: skip
    commit(project, f"{day - timedelta(days=1)}T09:00:00Z", {
        "LESSONS/L-0002.md": _lesson("L-0002", data, "retired", []),
        "LESSONS/RETIRED.md": "# Retired\n"
        f"- L-0002 · 2026-10-20 · reason: {flat} · where: w {flat}\n",
    }, message=f"retire {flat}")  # fmt: skip
    folder = root / "claude" / "projects" / f"-proj{n}"
    cwd = str(project)
    for k in range(3):
        s = ClaudeSession(folder, _session_id(n, k), cwd, version="2.0.42")
        s.prompt(ts(10 + k), f"commit the fix {data}")
        call = s.bash(ts(10 + k, 1), "head -40 LESSONS/INDEX.md")
        s.result(call, ts(10 + k, 2), _index(data))
        call = s.read(ts(10 + k, 5), f"{cwd}/LESSONS/L-0001-skipped.md")
        s.result(call, ts(10 + k, 6), numbered(lesson1))
        call = s.bash(ts(10 + k, 10), f"make test {flat}")
        s.result(call, ts(10 + k, 20), "ok")
        s.write()
    return project / "LESSONS"


def _report(root: Path, data: str) -> dict[str, str]:
    reset_ids()
    week = last_complete_week()
    day = week_bounds(week)[0].date() + timedelta(days=2)
    for n in (1, 2):
        _base(root, n, data, day)
    db = str(root / "w.duckdb")
    runner = CliRunner()
    done = runner.invoke(cli, ["--db", db, "ingest", str(root / "claude" / "projects")])
    assert done.exit_code == 0, done.output
    as_of = (day + timedelta(days=5)).isoformat()
    out = root / "report"
    args = ["--db", db, "report", "--week", week, "--out", str(out), "--as-of", as_of]
    done = runner.invoke(cli, args)
    assert done.exit_code == 0, done.output
    return {name: (out / name).read_text(encoding="utf-8") for name in ("report.md", "report.html")}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    return {
        "benign": _report(tmp_path_factory.mktemp("benign"), BENIGN),
        "hostile": _report(tmp_path_factory.mktemp("hostile"), HOSTILE),
    }


def _flat(text: str) -> list[Any]:
    return [t for tok in MD.parse(text) for t in [tok, *(tok.children or [])]]


def _structure(text: str) -> list[str]:
    """Every token but text, with its tag (a heading's level); an image only when its
    source is one of the report's own chart files (named from the base's slug)."""
    shape = []
    for t in _flat(text):
        if t.type in ("text", "text_special"):
            continue
        own = t.type != "image" or re.fullmatch(r"[a-z0-9-]+\.png", str(t.attrGet("src")))
        shape.append(f"{t.type}:{t.tag}" if own else f"{t.type}:{t.attrGet('src')}")
    return shape


def _shown(text: str) -> str:
    """The characters a reader sees, whitespace collapsed."""
    seen = [t.content for t in _flat(text) if t.type in ("text", "code_inline", "image")]
    return " ".join(" ".join(seen).split())


def test_hostile_data_leaves_the_structure_of_report_md_as_it_is(
    reports: dict[str, dict[str, str]],
) -> None:
    benign, hostile = reports["benign"]["report.md"], reports["hostile"]["report.md"]
    assert _structure(hostile) == _structure(benign)
    kinds = set(_structure(hostile))
    assert not [k for k in kinds if k.startswith(("html_", "link_open"))]
    # the comparison is not empty: the report has its headings, tables, code and emphasis
    for wanted in ("heading_open:h2", "heading_open:h3", "td_open:td", "code_inline:code",
                   "em_open:em", "strong_open:strong"):  # fmt: skip
        assert wanted in kinds, wanted
    headings = [t.tag for t in MD.parse(hostile) if t.type == "heading_open"]
    assert headings == [t.tag for t in MD.parse(benign) if t.type == "heading_open"]
    assert "Fake" not in [c.content for c in _flat(hostile) if c.type == "inline"]


def test_every_table_keeps_its_column_count(reports: dict[str, dict[str, str]]) -> None:
    def widths(text: str) -> list[int]:
        out, cells = [], 0
        for t in MD.parse(text):
            if t.type == "tr_open":
                cells = 0
            elif t.type in ("td_open", "th_open"):
                cells += 1
            elif t.type == "tr_close":
                out.append(cells)
        return out

    hostile = widths(reports["hostile"]["report.md"])
    assert hostile == widths(reports["benign"]["report.md"])
    assert len(hostile) > 10


# the fields the hostile text reaches in report.md, each as the reader sees it
FIELDS = {
    "base name and path": f"proj1 {_one_line(HOSTILE)}",
    "class": f"class {_one_line(HOSTILE)}",
    "trigger": f"shared {_one_line(HOSTILE)}".lower(),  # triggers are matched lowercased
    "target": f"target {_one_line(HOSTILE)}",
    "rule": f"run `make test` first. {_one_line(HOSTILE)}",
    "ritual pattern": f"^make test|{_one_line(HOSTILE)}",
    "command": f"make test {_one_line(HOSTILE)}",
    # a journal field ends at a "|" when the base is read (the loader's rule, not the
    # report's): the caught-by value the warehouse holds is the part before it
    "caught by": f"gate {HOSTILE.split(' |')[0]}",
    "journal what": f"missed {HOSTILE.split(' |')[0]}",
    "retired where": f"w {HOSTILE.split(' |')[0]}",  # RETIRED.md's fields end at "|" too
    "lesson id": f"L-0003 {_one_line(HOSTILE)}",
}


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_each_hostile_string_shows_literally(
    reports: dict[str, dict[str, str]], field: str
) -> None:
    shown = _shown(reports["hostile"]["report.md"])
    assert " ".join(FIELDS[field].split()) in shown, field
    for part in PARTS:
        assert part.strip() in shown


def test_report_html_still_escapes(reports: dict[str, dict[str, str]]) -> None:
    page = reports["hostile"]["report.html"]
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert not re.search(r"""href=["']?javascript:""", page)
    # the same elements in both pages: data added no tag
    tags = lambda html: re.findall(r"<(/?[a-z0-9]+)", html)  # noqa: E731
    assert tags(page) == tags(reports["benign"]["report.html"])


@pytest.mark.parametrize(
    "data", [*PARTS, HOSTILE, "a\\", "\\*", "``x``", " ` ", "C:\\Users\\x", "*", ""]
)
def test_data_in_the_layout_language_comes_back_as_itself(data: str) -> None:
    """lit and lit_code against the one parser the Markdown and HTML renderers share."""
    flat = _one_line(data)
    spans = inline_spans(f"*{lit(data)}* {lit_code(data)} x{lit(data)}")
    assert spans[0] == ("em", flat) if flat else spans[0][0] == "text"
    code = [content for kind, content in spans if kind == "code"]
    assert code == [flat or " "]
    assert spans[-1] == ("text", " x" + flat)
