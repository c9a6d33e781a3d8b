"""The notebooks run top to bottom (committed without outputs) against the demo warehouse."""

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


def _run(path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("LESSONS_ANALYTICS_DB", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the demo and the report go under tmp_path
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors


@pytest.mark.parametrize("name", ["01_starter.ipynb", "02_lesson_ladder.ipynb"])
def test_notebook_runs(
    name: str, kernel_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _run(NOTEBOOKS / name, kernel_env, monkeypatch, tmp_path)


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_committed_without_outputs(path: Path) -> None:
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, path.name


def test_notebooks_use_the_one_line_switch() -> None:
    for path in NOTEBOOKS.glob("*.ipynb"):
        source = "".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])
        assert source.count('DB = os.environ.get("LESSONS_ANALYTICS_DB")') == 1, path.name
        assert "/tmp" not in source and os.sep + "work" + os.sep not in source
