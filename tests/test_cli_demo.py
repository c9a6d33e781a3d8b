from pathlib import Path

from click.testing import CliRunner

from lessons_analytics.cli import cli


def test_demo_builds_ingests_and_analyses(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "load errors: 0" in result.output
    assert "sessions: 246" in result.output
    assert (out / "warehouse.duckdb").is_file()
    for name in ("atlas", "harbor", "api"):
        assert f"sleep signs {name}:" in result.output
