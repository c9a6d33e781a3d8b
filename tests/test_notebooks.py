"""The notebooks run top to bottom (committed without outputs) on the demo warehouse and on a
warehouse without a lesson base, with short base names and formatted numbers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
kernelspec = pytest.importorskip("ipykernel.kernelspec")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A ``python3`` kernel spec pointing at this interpreter, in a private Jupyter path, so
    that the notebooks run in the test's venv whatever the machine has installed."""
    prefix = tmp_path_factory.mktemp("jupyter")
    kernelspec.install(prefix=str(prefix), kernel_name="python3")
    spec = prefix / "share" / "jupyter" / "kernels" / "python3" / "kernel.json"
    assert spec.is_file()
    return {"JUPYTER_PATH": str(prefix / "share" / "jupyter")}


def _run(path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """Execute the notebook; its text outputs, joined."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the demo and the report go under tmp_path
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    errors = [o for o in outputs if o.get("output_type") == "error"]
    assert not errors, errors[0].get("evalue")
    texts = [o.get("text", "") for o in outputs]
    texts += [o.get("data", {}).get("text/plain", "") for o in outputs]
    return "\n".join(texts)


NAMES = ["01_starter.ipynb", "02_lesson_ladder.ipynb"]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_on_the_demo(
    name: str, kernel_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("LESSONS_ANALYTICS_WAREHOUSE", raising=False)
    text = _run(NOTEBOOKS / name, kernel_env, monkeypatch, tmp_path)
    # the demo's bases by their short names, with the legend to their paths
    for short in ("atlas", "harbor", "api"):
        assert f"\n{short} = " in text, short
    assert "/LESSONS  " not in text  # no full path as a table cell
    if name.startswith("01"):
        # coverage of atlas as the demo's printout has it: 40 of its 105 sessions recalled
        assert "atlas        105   68/105 (65 %)  40/105 (38 %)" in text
    else:
        # L-0001 of atlas: 5 of its 9 hits of known recall came while it was recalled
        assert "atlas L-0001 (active, recalled at 5/9 (56 %) of the hits of known recall)" in text


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_on_a_warehouse_without_bases(
    name: str, kernel_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from lessons_analytics import ingest

    db = tmp_path / "nobase.duckdb"
    data = Path(__file__).parent / "data"
    # the fixture tree's sessions stand in folders without LESSONS/: 0 bases
    report = ingest(db, [data / "projects", data / "codex"])
    assert report.totals["bases"] == 0 and report.totals["sessions"] > 0
    monkeypatch.setenv("LESSONS_ANALYTICS_WAREHOUSE", str(db))
    text = _run(NOTEBOOKS / name, kernel_env, monkeypatch, tmp_path)
    assert "No lesson base in the warehouse" in text


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_committed_without_outputs(path: Path) -> None:
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, path.name


def test_notebooks_use_the_one_line_switch() -> None:
    for path in NOTEBOOKS.glob("*.ipynb"):
        source = "".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])
        assert source.count('DB = os.environ.get("LESSONS_ANALYTICS_WAREHOUSE")') == 1, path.name
        assert "/tmp" not in source and os.sep + "work" + os.sep not in source
