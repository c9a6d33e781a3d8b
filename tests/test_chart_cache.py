"""The report reuses a chart's PNG while its data and the chart code are unchanged, and the
reused bytes are those of an uncached render."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import polars as pl
import pytest

from lessons_analytics import warehouse
from lessons_analytics.report import chartcache, charts, write_report
from lessons_analytics.report.layout import Chart
from lessons_analytics.settings import Thresholds
from tests.support.demo_warehouse import demo_warehouse

WEEK = "2026-W48"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _, db = demo_warehouse(tmp_path_factory.mktemp("chart-cache-demo"))
    return db


def _report(db: Path, out: Path) -> list[Path]:
    con = warehouse.connect(db, read_only=True)
    try:
        paths = write_report(
            con,
            out,
            WEEK,
            as_of=date(2026, 11, 30),
            thresholds=Thresholds(),
            generated_at=datetime(2026, 12, 1, tzinfo=UTC),
        )
        return paths.charts
    finally:
        con.close()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    drawn: list[int] = []
    real = charts.png_bytes

    def png_bytes(fig: object) -> bytes:
        drawn.append(1)
        return real(fig)  # type: ignore[arg-type]

    monkeypatch.setattr(charts, "png_bytes", png_bytes)
    return drawn


def test_second_report_reuses_every_chart_and_writes_the_same_bytes(
    demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = _counting(monkeypatch)
    first = _report(demo_db, tmp_path / "a")
    assert len(first) > 10
    assert len(drawn) == len(first)
    cached = {p.name: p.read_bytes() for p in first}
    again = _report(demo_db, tmp_path / "a")
    assert len(drawn) == len(first)  # nothing drawn the second time
    assert {p.name: p.read_bytes() for p in again} == cached
    html_a = (tmp_path / "a" / "report.html").read_bytes()
    # A fresh folder has no cache: every chart drawn anew, the same bytes.
    fresh = _report(demo_db, tmp_path / "b")
    assert len(drawn) == 2 * len(first)
    assert {p.name: p.read_bytes() for p in fresh} == cached
    assert (tmp_path / "b" / "report.html").read_bytes() == html_a
    cache = chartcache.cache_dir(tmp_path / "a")
    assert cache.parent.parent == tmp_path  # beside the report, not in it
    assert not (tmp_path / "a" / chartcache.CACHE_DIR).exists()
    assert len(list(cache.iterdir())) == len(set(cached.values()))


def _chart(reads: int) -> Chart:
    frame = pl.DataFrame({"id": ["L-1", "L-2"], "tokens": [reads, 900], "large": [False, True]})
    return Chart("body.png", "bodies", "bodies_chart", (frame,))


def test_changed_data_redraws_and_leaves_only_the_new_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = _counting(monkeypatch)
    one = chartcache.render_charts([_chart(100)], tmp_path / "r")
    assert len(drawn) == 1
    assert chartcache.render_charts([_chart(100)], tmp_path / "r") == one
    assert len(drawn) == 1
    two = chartcache.render_charts([_chart(101)], tmp_path / "r")
    assert len(drawn) == 2
    assert two["body.png"] != one["body.png"]
    assert two["body.png"] == charts.png_bytes(_chart(101).figure)
    version = chartcache.code_version()
    left = [p.name for p in chartcache.cache_dir(tmp_path / "r").iterdir()]
    assert left == [f"{chartcache.chart_key(_chart(101), version)}.png"]


def test_the_key_follows_dtypes_and_code_version(tmp_path: Path) -> None:
    version = chartcache.code_version()
    as_int = _chart(100)
    frame = as_int.args[0].cast({"tokens": pl.Float64})
    as_float = Chart("body.png", "bodies", "bodies_chart", (frame,))
    assert chartcache.chart_key(as_int, version) != chartcache.chart_key(as_float, version)
    assert chartcache.chart_key(as_int, version) != chartcache.chart_key(as_int, version + "x")
    other = tmp_path / "charts.py"
    other.write_text(chartcache.CHARTS_SOURCE.read_text() + "\n# changed\n")
    original = chartcache.CHARTS_SOURCE
    try:
        chartcache.CHARTS_SOURCE = other
        assert chartcache.code_version() != version
    finally:
        chartcache.CHARTS_SOURCE = original


def test_the_matplotlib_version_is_the_installed_distributions() -> None:
    from importlib import metadata

    assert chartcache._matplotlib_version() == metadata.version("matplotlib")


def test_a_fully_cached_report_does_not_import_matplotlib(demo_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    _report(demo_db, out)
    script = (
        "import sys\n"
        "from datetime import date\n"
        "from pathlib import Path\n"
        "from lessons_analytics import warehouse\n"
        "from lessons_analytics.report import write_report\n"
        "from lessons_analytics.settings import Thresholds\n"
        f"con = warehouse.connect(Path({str(demo_db)!r}), read_only=True)\n"
        f"write_report(con, Path({str(out)!r}), {WEEK!r}, as_of=date(2026, 11, 30),"
        " thresholds=Thresholds())\n"
        "print('matplotlib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
