"""The report reads only the warehouse, and the demo's report does not depend on where the
workspace lives; the committed example (reports/2026-W48) is what the demo gives today.

The demo is built twice, under roots of different lengths (a path under the root appears
in tool results: Claude Code names the file it saved a large result to), and each
report is rendered; then the first warehouse is copied alone into an empty folder, the
workspace (bases, git repositories, transcripts) deleted, and the report rendered again.
``pytest tests/test_report_reproducible.py --update-golden`` rewrites the example.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from lessons_analytics import warehouse
from lessons_analytics.report import ReportPaths, demo_report
from lessons_analytics.settings import Thresholds
from tests.support.demo_warehouse import demo_warehouse

EXAMPLE = Path(__file__).resolve().parent.parent / "reports" / "2026-W48"
SHORT, LONG = "a", "b" * 60


def _render(db: Path, root: Path, last_day: Any, out: Path) -> ReportPaths:
    con = warehouse.connect(db, read_only=True)
    try:
        return demo_report(con, root, last_day, out, thresholds=Thresholds())
    finally:
        con.close()


@pytest.fixture(scope="module")
def renders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ReportPaths]:
    out: dict[str, ReportPaths] = {}
    for name in (SHORT, LONG):
        top = tmp_path_factory.mktemp("repro")
        root = top / name
        ws, db = demo_warehouse(root)
        out[name] = _render(db, root, ws.last_day, top / "report")
        if name == SHORT:
            alone = tmp_path_factory.mktemp("alone") / "copy.duckdb"
            shutil.copyfile(db, alone)
            shutil.rmtree(root)  # bases, repositories and transcripts are gone
            out["alone"] = _render(alone, root, ws.last_day, top / "report-alone")
    return out


def _same(a: object, b: object, path: str = "") -> None:
    """Equal, floats to 1e-12 relative: DuckDB sums floats in parallel, so the last bits of
    a sum (the session active time behind share_of_active_time) vary from run to run."""
    if isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12), path
    elif isinstance(a, dict) and isinstance(b, dict):
        assert sorted(a) == sorted(b), path
        for key in a:
            _same(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]")
    else:
        assert a == b, path


def _data(paths: ReportPaths) -> Any:
    return orjson.loads(paths.data.read_bytes())


def test_the_report_from_the_warehouse_alone_is_the_same(renders: dict[str, ReportPaths]) -> None:
    one, alone = renders[SHORT], renders["alone"]
    assert alone.markdown.read_text() == one.markdown.read_text()
    _same(_data(alone), _data(one))
    signs = [b["signs"] for b in _data(alone)["bases"]]
    assert signs and all(s["available"] and s["source"] == "warehouse" for s in signs)
    # the history is there too: the statuses were stored, not read from git today
    assert any(e["kind"] == "promoted" for b in _data(alone)["bases"] for e in b["life"]["events"])


def test_the_demo_report_does_not_depend_on_the_workspace_path(
    renders: dict[str, ReportPaths],
) -> None:
    short, long = renders[SHORT], renders[LONG]
    assert long.markdown.read_text() == short.markdown.read_text()
    _same(_data(long), _data(short))
    for paths in (short, long):
        text = paths.markdown.read_text()
        assert "-repos-atlas/" in text and f"-{LONG}-" not in text and "-a-repos" not in text


def test_the_committed_example_is_what_the_demo_gives(
    renders: dict[str, ReportPaths], request: pytest.FixtureRequest
) -> None:
    fresh = renders[SHORT]
    if request.config.getoption("--update-golden"):
        shutil.rmtree(EXAMPLE, ignore_errors=True)
        shutil.copytree(fresh.directory, EXAMPLE)
    assert sorted(p.name for p in EXAMPLE.iterdir()) == sorted(
        p.name for p in fresh.directory.iterdir()
    ), "the example's files differ (--update-golden)"
    assert (EXAMPLE / "report.md").read_text() == fresh.markdown.read_text(), (
        "reports/2026-W48/report.md differs from the demo's (--update-golden)"
    )
    _same(orjson.loads((EXAMPLE / "data.json").read_bytes()), _data(fresh))
