from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import matplotlib
import orjson
import polars as pl
import pytest
from click.testing import CliRunner
from matplotlib.figure import Figure

from lessons_analytics import metrics, warehouse
from lessons_analytics.cli import cli
from lessons_analytics.report import (
    build_report_data,
    charts,
    demo_report,
    last_complete_week,
    parse_week,
    share,
    to_json,
    week_bounds,
    wilson,
    write_report,
)
from lessons_analytics.report.numbers import delta, fmt_delta, fmt_share
from lessons_analytics.settings import Thresholds
from lessons_analytics.weeks import shift_week
from tests.support.demo_warehouse import demo_warehouse

T = Thresholds()  # the defaults

WEEK = "2026-W48"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    ws, db = demo_warehouse(tmp_path_factory.mktemp("report-demo"))
    return ws.root, db


@pytest.fixture(scope="module")
def report(demo: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    _, db = demo
    out = tmp_path_factory.mktemp("report") / WEEK
    con = warehouse.connect(db, read_only=True)
    try:
        write_report(con, out, WEEK, as_of=date(2026, 11, 30), thresholds=T)
    finally:
        con.close()
    return out


def _same(a: object, b: object, path: str = "") -> None:
    """Equal, floats to 1e-12 relative: DuckDB sums floats in parallel, so the last bits of
    a sum (the session active time behind share_of_active_time) vary from run to run."""
    if isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12), path
    elif isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            _same(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]")
    else:
        assert a == b, path


def _data(report: Path) -> dict:
    return orjson.loads((report / "data.json").read_bytes())


# ---------------------------------------------------------------- numbers


def test_wilson_known_values() -> None:
    low, high = wilson(45, 104)
    assert (round(low, 4), round(high, 4)) == (0.3416, 0.5286)  # the score quadratic's roots
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    low, high = wilson(10, 10)
    assert round(low, 4) == 0.7225 and high == 1.0
    low, high = wilson(1, 2)
    assert (round(low, 4), round(high, 4)) == (0.0945, 0.9055)
    assert wilson(0, 0) is None


def test_share_marks_direction_only_below_15() -> None:
    assert share(3, 14)["direction_only"] is True
    assert share(3, 15)["direction_only"] is False
    assert share(0, 0) == {
        "count": 0,
        "total": 0,
        "share": None,
        "ci95": None,
        "direction_only": True,
    }
    # the mark, not the words, in the cell; the interval on a second line
    assert fmt_share(share(7, 14)) == "7/14 = 50.0 %†\n[26.8–73.2]"
    assert fmt_share(share(45, 104)) == "45/104 = 43.3 %\n[34.2–52.9]"


def test_deltas_and_arrows() -> None:
    up = delta(0.5, 0.25, is_share=True)
    assert up["arrow"] == "▲" and up["delta"] == pytest.approx(25.0)
    assert fmt_delta(up, is_share=True) == "▲ +25.0 pp"
    down = delta(3, 5, is_share=False)
    assert (down["arrow"], down["delta"]) == ("▼", -2)
    assert fmt_delta(down, is_share=False, digits=0) == "▼ -2"
    assert delta(4, 4, is_share=False)["arrow"] == "→"
    assert delta(None, 0.3, is_share=True)["arrow"] == "–"


def test_weeks() -> None:
    begin, end = week_bounds("2026-W48")
    assert begin.date() == date(2026, 11, 23) and end.date() == date(2026, 11, 30)
    assert last_complete_week(date(2026, 12, 1)) == "2026-W48"  # a Tuesday
    assert last_complete_week(date(2026, 11, 30)) == "2026-W48"  # a Monday: last week is done
    assert last_complete_week(date(2026, 11, 29)) == "2026-W47"  # a Sunday: W48 still runs
    assert shift_week("2026-W01", -1) == "2025-W52"
    for bad in ("2026-48", "2026-W54", "2025-W53"):
        with pytest.raises(ValueError):
            parse_week(bad)


# ---------------------------------------------------------------- charts


def test_charts_are_figures_under_agg() -> None:
    assert matplotlib.get_backend().lower() == "agg"
    weeks = ["2026-W47", "2026-W48"]
    notes = pl.DataFrame({"week": ["2026-W48"], "label": ["L-1 retired"]})
    figures = [
        charts.coverage_chart(
            pl.DataFrame(
                {
                    "week": weeks,
                    "sessions_in_scope": [10, 20],
                    "sessions_recalled": [4, 15],
                    "low": [0.1, 0.5],
                    "high": [0.7, 0.9],
                }
            ),
            weeks,
            notes,
        ),
        charts.hits_by_week_chart(
            pl.DataFrame({"week": weeks, "recall": ["recalled", "unknown"], "hits": [2, 3]}),
            weeks,
            notes,
        ),
        charts.hits_by_caught_chart(
            pl.DataFrame({"caught": ["gate"], "recall": ["recalled"], "hits": [1]})
        ),
        charts.heads_histogram_chart(
            pl.DataFrame({"head_n": [20, 40], "reads": [3, 5], "blind_reads": [3, 0]}), 30
        ),
        charts.bodies_chart(pl.DataFrame({"id": ["L-1"], "tokens": [100], "large": [True]})),
        charts.hits_by_week_chart(pl.DataFrame(), weeks),  # empty: a figure saying so
    ]
    for fig in figures:
        assert isinstance(fig, Figure)
        assert charts.png_bytes(fig).startswith(b"\x89PNG")


# ---------------------------------------------------------------- the written report


def test_report_files_exist(report: Path) -> None:
    for name in ("report.md", "report.html", "data.json"):
        assert (report / name).is_file()
    pngs = sorted(p.name for p in report.glob("*.png"))
    assert "portfolio-coverage.png" in pngs
    for base in ("atlas", "harbor", "harbor-services-api"):
        for chart in ("coverage", "hits-by-week", "head-histogram", "life"):
            assert f"{base}-{chart}.png" in pngs
    md = (report / "report.md").read_text()
    for png in pngs:
        assert f"]({png})" in md


def test_html_is_self_contained(report: Path) -> None:
    page = (report / "report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page, re.IGNORECASE)
    assert "<link" not in page and "<script" not in page and "@import" not in page
    sources = re.findall(r'<img[^>]*src="([^"]+)"', page)
    assert len(sources) == len(list(report.glob("*.png")))
    assert all(s.startswith("data:image/png;base64,") for s in sources)
    assert 'name="viewport"' in page and "max-width" in page


def test_report_contents(report: Path) -> None:
    md = (report / "report.md").read_text()
    for heading in (
        "## Portfolio: all bases",
        "### Mechanism families",
        "## Base: atlas",
        "### The ladder: failing although recalled",
        "### Recall coverage by week",
        "### Hit attribution",
        "### Index reads: the head -N histogram",
        "### Top lessons by body-read tokens",
        "### Ritual time",
        "### Sleep signs",
        "### Life of the base",
    ):
        assert heading in md
    atlas = md.split("## Base: atlas")[1].split("## Base:")[0]
    # what to do first, then the numbers, then the ladder
    assert atlas.index("Do this first") < atlas.index("Headline numbers")
    assert atlas.index("Headline numbers") < atlas.index("The ladder")
    assert "L-0001" in atlas.split("### Headline")[0]
    assert "†" in md and "[" in md and ("▲" in md or "▼" in md)
    assert "L-0009 retired" in md and "INDEX re-layout (Active line 43→5)" in md
    # the week-6 review's notes pushed the heading down: the index grew, no re-layout
    assert "INDEX grew (Active line 28→43)" in md and "re-layout (Active line 28" not in md
    assert "uv.lock pins gdal" in md  # where the remedy went


def test_data_json_equals_the_json_documents(demo: tuple[Path, Path], report: Path) -> None:
    _, db = demo
    data = _data(report)
    since, until = week_bounds(WEEK)
    con = warehouse.connect(db, read_only=True)
    try:
        for section in data["bases"]:
            f = metrics.Filters((section["base"],), since, until)
            docs = section["documents"]
            expected = {
                "coverage": metrics.coverage_document(con, f)["bases"][0],
                "heads": metrics.heads_document(con, f)["bases"][0],
                "hits": metrics.hits_document(con, f)["bases"][0],
                "bodies": metrics.bodies_document(con, f, T.chars_per_token, T.large_body_bytes)[
                    "bases"
                ][0],
                "cost": metrics.cost_document(con, f, gap_cap_s=T.gap_cap_s)["rituals"],
            }
            for name, doc in expected.items():
                _same(docs[name], orjson.loads(to_json(doc)), name)
            head = {h["key"]: h for h in section["headline"]}
            cov = expected["coverage"]
            assert (head["coverage"]["count"], head["coverage"]["total"]) == (
                cov["sessions_recalled"],
                cov["sessions_in_scope"],
            )
            assert head["hits"]["value"] == expected["hits"]["hits"]
    finally:
        con.close()


def test_data_json_equals_the_cli_json(demo: tuple[Path, Path], report: Path) -> None:
    _, db = demo
    data = _data(report)
    runner = CliRunner()
    for section in data["bases"]:
        for command in ("coverage", "hits", "heads", "bodies"):
            result = runner.invoke(
                cli,
                [
                    "--db",
                    str(db),
                    command,
                    "--json",
                    "--base",
                    section["base"],
                    "--since",
                    "2026-11-23",
                    "--until",
                    "2026-11-29",
                ],
            )
            assert result.exit_code == 0, result.output
            printed = orjson.loads(result.output)["bases"][0]
            _same(section["documents"][command], orjson.loads(to_json(printed)), command)


def test_headline_deltas_against_previous_week(demo: tuple[Path, Path], report: Path) -> None:
    _, db = demo
    data = _data(report)
    since, _ = week_bounds("2026-W47")
    until, _ = week_bounds(WEEK)
    con = warehouse.connect(db, read_only=True)
    try:
        for section in data["bases"]:
            prev = metrics.coverage_document(
                con, metrics.Filters((section["base"],), since, until)
            )["bases"][0]
            cov = next(h for h in section["headline"] if h["key"] == "coverage")
            assert (cov["previous_count"], cov["previous_total"]) == (
                prev["sessions_recalled"],
                prev["sessions_in_scope"],
            )
            if cov["share"] is not None and prev["coverage"] is not None:
                assert cov["delta"] == pytest.approx(100 * (cov["share"] - prev["coverage"]))
                assert cov["arrow"] in "▲▼→"
    finally:
        con.close()


def test_empty_week_says_so(demo: tuple[Path, Path], tmp_path: Path) -> None:
    _, db = demo
    con = warehouse.connect(db, read_only=True)
    try:
        paths = write_report(con, tmp_path / "empty", "2025-W10", thresholds=T)
    finally:
        con.close()
    md = paths.markdown.read_text()
    assert "No data for 2025-W10" in md
    assert paths.charts == [] and not list(paths.directory.glob("*.png"))
    data = orjson.loads(paths.data.read_bytes())
    assert data["has_data"] is False
    assert all(not s["has_data"] for s in data["bases"])


def test_demo_report_is_reproducible_and_relative(demo: tuple[Path, Path], tmp_path: Path) -> None:
    root, db = demo
    con = warehouse.connect(db, read_only=True)
    try:
        one = demo_report(con, root, date(2026, 11, 29), tmp_path / "one", thresholds=T)
        two = demo_report(con, root, date(2026, 11, 29), tmp_path / "two", thresholds=T)
    finally:
        con.close()
    for path in (one.markdown, one.html, one.data):
        text = path.read_text()
        assert str(root) not in text and str(tmp_path) not in text
    _same(orjson.loads(one.data.read_bytes()), orjson.loads(two.data.read_bytes()))
    assert one.markdown.read_text() == two.markdown.read_text()
    assert orjson.loads(one.data.read_bytes())["generated_at"] == "2026-11-30T00:00:00+00:00"


def test_report_command(demo: tuple[Path, Path], tmp_path: Path) -> None:
    root, db = demo
    out = tmp_path / "cmd"
    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "--db",
            str(db),
            "report",
            "--week",
            WEEK,
            "--out",
            str(out),
            "--base",
            str(root / "repos" / "atlas"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(out / "report.html")
    data = orjson.loads((out / "data.json").read_bytes())
    assert [s["name"] for s in data["bases"]] == ["atlas"]
    result = runner.invoke(cli, ["--db", str(db), "report", "--week", "2026-48"])
    assert result.exit_code == 2 and "ISO week" in result.output
    result = runner.invoke(
        cli,
        [
            "--db",
            str(tmp_path / "none.duckdb"),
            "report",
            "--week",
            WEEK,
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert result.exit_code == 1 and "no warehouse" in result.output


def test_build_report_data_ladder_and_portfolio(demo: tuple[Path, Path]) -> None:
    _, db = demo
    con = warehouse.connect(db, read_only=True)
    try:
        data = build_report_data(con, WEEK, thresholds=T)
    finally:
        con.close()
    atlas = next(s for s in data["bases"] if s["name"] == "atlas")
    assert atlas["ladder"] and all(r["recalled"] >= 2 for r in atlas["ladder"])
    recalled = [r["recalled"] for r in atlas["ladder"]]
    assert recalled == sorted(recalled, reverse=True)
    assert [r["name"] for r in data["portfolio"]["rows"]] == [s["name"] for s in data["bases"]]
    assert all(len(f["bases"]) >= 2 for f in data["portfolio"]["classes"])


def test_no_structure_or_trigger_action_for_a_lesson_that_helps(report: Path) -> None:
    """The demo's atlas L-0006 halved its failure ("helps") but most of its hits in the
    window came before it was active, unrecalled: the split alone would say "fix its
    triggers"; the verdict over its whole history wins."""
    data = _data(report)
    atlas = next(s for s in data["bases"] if s["name"] == "atlas")
    verdicts = {r["lesson_id"]: r["verdict"] for r in atlas["effects"]}
    assert verdicts["L-0006"] == "helps"
    for section in data["bases"]:
        verdicts = {r["lesson_id"]: r["verdict"] for r in section["effects"]}
        for action in section["first"]["actions"]:
            if action["kind"] in ("build-structure", "fix-triggers"):
                assert verdicts.get(action["subject"]) not in ("helps", "retire candidate")
    kinds = [(a["kind"], a["subject"]) for a in atlas["first"]["actions"]]
    assert ("fix-triggers", "L-0006") not in kinds
    assert kinds[0] == ("drop-ritual", "L-0002, L-0012")  # one ritual, two lessons
