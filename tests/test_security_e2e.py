"""End to end: plant secrets of every kind and hostile markup in transcripts, lessons and
commits (a real git base in tmp_path), run report, retro, nightly, hits/recalled --json and
cards, and look for them in every output file and on stdout.

Secrets: tests/planted.py (20 kinds). Markup: HTML, script, ``javascript:`` links, table
rows and emphasis in lesson ids, classes, rules, targets, triggers, retired reasons,
prompts, commands, paths and commit subjects; report.md and digest.md are rendered with a
real Markdown renderer (markdown-it-py) when it is installed.
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
from lessons_analytics.report import last_complete_week, week_bounds
from tests.support.basebuilder import commit, git
from tests.support.planted import SECRETS
from tests.support.transcripts import ClaudeSession, numbered, reset_ids

S1 = "e2e00001-1111-4111-8111-111111111111"
S2 = "e2e00002-2222-4222-8222-222222222222"
ONE_LINE = [text for text, _ in SECRETS.values() if "\n" not in text]
PEM = SECRETS["private-key"][0]
SECRET_PARTS = {kind: part for kind, (_, part) in SECRETS.items()}
ALL = " ; ".join(ONE_LINE)
HOSTILE = [
    "<script>alert(1)</script>",
    "[click](javascript:alert(2))",
    '<img src=x onerror="alert(3)">',
    "<a href='javascript:alert(4)'>x</a>",
    "| fake | row |",
    "**bold** _em_ `tick`",
    "<!-- x --> -->",
]
MARKUP = " ".join(HOSTILE)
PROJECT = "p<i>x"  # a path with markup in it


def _yaml(value: Any) -> str:
    return json.dumps(value)  # a JSON string or list is a YAML flow scalar


def _lesson(lid: str, *, status: str = "active", hits: list[str] = ()) -> str:  # type: ignore[assignment]
    lines = [
        "---",
        f"id: {lid}",
        "addressee: all-agents",
        f"trigger: {_yaml(['make', *ONE_LINE[:6], *HOSTILE[:3]])}",
        f"scope: {_yaml('committing ' + ALL + ' ' + MARKUP)}",
        f"target: {_yaml('leaked ' + ALL + ' ' + MARKUP)}",
        f"class: {_yaml('cls ' + ONE_LINE[0] + ' ' + MARKUP)}",
        f"status: {status}",
        "created: 2026-10-01",
        "evidence:",
        "  helped: true",
        "---",
        f"Rule: instead of committing straight away, run `make test` first. {ALL} {MARKUP}",
        PEM,
        "Why: it shipped.",
        "",
    ]
    if hits:
        lines += ["## Hits", *hits, ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    reset_ids()
    root = tmp_path_factory.mktemp("e2e")
    week = last_complete_week()
    monday = week_bounds(week)[0].date()
    day = monday + timedelta(days=2)
    ts = lambda h, m=0: f"{day.isoformat()}T{h:02d}:{m:02d}:00Z"  # noqa: E731
    project = root / PROJECT
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    what = f"what: leaked {ALL} {MARKUP}".replace(" · ", " ")
    hit = (
        f"- {day.isoformat()} · {what} · caught: gate · recalled: yes · defect: bug"
        f" · session: {S1} · ts: {ts(11)}"
    )
    lesson1 = _lesson("L-0001", hits=[hit])
    index = "\n".join([
        "# Lessons: e2e",
        "",
        "## Active",
        "| id | addressee | triggers | target |",
        "|---|---|---|---|",
        f"| L-0001 | all-agents | make | {ONE_LINE[1]} {HOSTILE[0]} |",
        f"| L-0002 | all-agents | make | {ONE_LINE[2]} |",
        "",
    ])  # fmt: skip
    retired = f"# Retired\n- L-0003 · 2026-10-20 · reason: {ALL} {MARKUP} · where: {ONE_LINE[3]}\n"
    commit(project, "2026-10-01T09:00:00Z", {
        "LESSONS/INDEX.md": index,
        "LESSONS/L-0001-skipped.md": lesson1,
        "LESSONS/L-0002.md": _lesson('L-0002"<script>x</script>'.replace('"', "")),
        "LESSONS/L-0003.md": _lesson("L-0003", status="retired"),
        "LESSONS/RETIRED.md": retired,
    }, message="base")  # fmt: skip
    # git signals: a change, a fix of it within hours, and a revert, subjects with secrets
    bad = commit(project, f"{day}T08:00:00Z", {"app/cache.py": "v1\n"},
                 f"cache: write {ONE_LINE[4]} {HOSTILE[1]}")  # fmt: skip
    commit(project, f"{day}T09:00:00Z", {"app/cache.py": "v2\n"},
           f"fix: cache {ONE_LINE[5]} {HOSTILE[0]}")  # fmt: skip
    commit(project, f"{day}T10:00:00Z", {"app/cache.py": "v0\n"},
           f'Revert "cache {ONE_LINE[6]}"\n\nThis reverts commit {bad}.')  # fmt: skip
    projects = root / "claude" / "projects"
    folder = projects / "-p-i-x"
    cwd = str(project)
    s = ClaudeSession(folder, S1, cwd, version="2.0.42")
    s.prompt(ts(10), f"commit the fix {ALL}\n{PEM}\n{MARKUP}")
    call = s.read(ts(10, 5), f"{cwd}/LESSONS/L-0001-skipped.md")
    s.result(call, ts(10, 6), numbered(lesson1))
    for minute in (10, 11, 12):  # a repeated failure
        call = s.bash(ts(10, minute), f"psql {ONE_LINE[-1]} -c 'select 1' {HOSTILE[0]}")
        s.result(call, ts(10, minute), f"error: {ALL} {MARKUP}", is_error=True)
    # a secret right at the 300-character head the warehouse keeps of a result
    call = s.bash(ts(10, 20), f"curl -H '{SECRETS['bearer'][0]}' https://api.test")
    s.result(call, ts(10, 21), "x" * 290 + " " + SECRETS["github-ghp"][0] + " tail")
    call = s.bash(ts(10, 30), f"rm -rf build {ONE_LINE[7]} {HOSTILE[2]}")
    s.result(
        call, ts(10, 31), f"The user doesn't want to proceed with this tool use. {ALL}",
        is_error=True,
    )  # fmt: skip
    s.prompt(ts(10, 32), "[Request interrupted by user for tool use]")
    s.prompt(ts(10, 33), f"not like that, you broke it again {ALL} {MARKUP}")
    s.prompt(ts(10, 40), f"no, that is wrong again {ALL}")
    s.write()
    t = ClaudeSession(folder, S2, cwd, version="2.0.42")
    t.prompt(ts(13), f"not like that {ALL}")
    call = t.bash(ts(13, 1), f"psql {ONE_LINE[-1]} -c 'select 1' {HOSTILE[0]}")
    t.result(call, ts(13, 2), f"error: {ALL}", is_error=True)
    t.prompt(ts(13, 3), f"you broke it again {ALL}")
    t.write()
    return {"root": root, "project": project, "projects": projects, "week": week, "day": day}


def _run(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result


@pytest.fixture(scope="module")
def outputs(workspace: dict[str, Any]) -> dict[str, str]:
    root: Path = workspace["root"]
    db = str(root / "w.duckdb")
    base = str(workspace["project"] / "LESSONS")
    out: dict[str, str] = {}
    out["ingest"] = _run("--db", db, "ingest", str(workspace["projects"]), "--json").stdout
    as_of = (workspace["day"] + timedelta(days=5)).isoformat()
    out["report"] = _run(
        "--db", db, "report", "--week", workspace["week"], "--out", str(root / "report"),
        "--as-of", as_of, "--json",
    ).stdout  # fmt: skip
    out["retro"] = _run(
        "--db", db, "retro", "--out", str(root / "retro"), "--base", base,
        "--repo", str(workspace["project"]), "--json",
    ).stdout  # fmt: skip
    out["hits"] = _run("--db", db, "hits", "--json").stdout
    out["recalled"] = _run("--db", db, "recalled", "L-0001", "--session", S1, "--json").stdout
    out["recalled-text"] = _run("--db", db, "recalled", "L-0001", "--session", S1).stdout
    out["coverage"] = _run("--db", db, "coverage", "--json").stdout
    out["stats"] = _run("--db", db, "stats", base, "--json", "--as-of", as_of).stdout
    out["cards"] = _run("cards", str(workspace["project"])).stdout
    out["cards-json"] = _run("cards", str(workspace["project"]), "--json").stdout
    config = root / "nightly.toml"
    config.write_text(
        f'sources = ["{workspace["projects"]}"]\nwarehouse = "{root / "n.duckdb"}"\nmark = false\n'
    )
    out["nightly"] = _run(
        "--config", str(config), "nightly", "--report-dir", str(root / "nightly"), "--json"
    ).stdout  # fmt: skip
    for folder in ("report", "retro", "nightly"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix != ".png":
                out[str(path.relative_to(root))] = path.read_text(encoding="utf-8")
    return out


def test_every_output_was_produced(outputs: dict[str, str]) -> None:
    names = set(outputs)
    for wanted in ("report/report.md", "report/report.html", "report/data.json",
                   "retro/signals.jsonl", "retro/digest.md"):  # fmt: skip
        assert wanted in names
    assert any(n.startswith("nightly/") and n.endswith("report.md") for n in names)
    signals = [json.loads(line) for line in outputs["retro/signals.jsonl"].splitlines()]
    kinds = {s["kind"] for s in signals}
    assert {"repeated_failure", "rejected_tool_use", "correction", "revert"} <= kinds
    recalled = json.loads(outputs["recalled"])
    assert recalled["status"] == "recalled" and recalled["evidence"]
    # the planted lesson text reached the outputs, redacted
    assert "[REDACTED:" in outputs["report/data.json"]
    assert "[REDACTED:" in outputs["retro/digest.md"]
    assert "[REDACTED:" in outputs["cards"]


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_no_planted_secret_reaches_any_output(outputs: dict[str, str], kind: str) -> None:
    part = SECRET_PARTS[kind]
    leaks = [name for name, text in outputs.items() if part in text]
    # a JSON file escapes "/" and newlines; look at the decoded text too
    for name, text in outputs.items():
        if name.endswith((".json", ".jsonl")) or text.lstrip().startswith(("{", "[")):
            for line in text.splitlines() or [text]:
                try:
                    decoded = json.dumps(json.loads(line), ensure_ascii=False)
                except ValueError:
                    break
                if part in decoded and name not in leaks:
                    leaks.append(name)
    assert not leaks, f"{kind} leaks into {leaks}"


def _markdown_files(outputs: dict[str, str]) -> dict[str, str]:
    return {n: t for n, t in outputs.items() if n.endswith(".md")}


def test_markdown_outputs_carry_no_markup_from_the_data(outputs: dict[str, str]) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark").enable("table")
    files = _markdown_files(outputs)
    assert {"report/report.md", "retro/digest.md"} <= set(files)
    for name, text in files.items():
        tokens = md.parse(text)
        flat = [t for tok in tokens for t in [tok, *(tok.children or [])]]
        html = [t.content for t in flat if t.type in ("html_inline", "html_block")]
        assert html == [], (name, html[:3])
        hrefs = [t.attrGet("href") for t in flat if t.type == "link_open"]
        assert not [h for h in hrefs if h and not str(h).startswith(("http", "/", "#"))], (
            name,
            hrefs,
        )
        rendered = md.render(text)
        assert "<script" not in rendered and "javascript:" not in " ".join(map(str, hrefs))
        images = re.findall(r'<img src="([^"]*)"', rendered)  # only the report's own charts
        assert all(re.fullmatch(r"[\w-]+\.png", src) for src in images), (name, images)
        # a data "| fake | row |" never becomes a table row of its own
        cells = [t.content for t in flat if t.type == "inline" and t.content.strip() == "fake"]
        assert cells == [], name


def test_report_html_keeps_escaping(outputs: dict[str, str]) -> None:
    page = outputs["report/report.html"]
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;" in page
