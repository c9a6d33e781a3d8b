"""Every intermediate model has a unit test file here with at least one case and mutant."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from lessons_analytics import sqlfiles

HERE = Path(__file__).parent


def test_every_intermediate_model_has_unit_tests() -> None:
    models = sorted(p.stem for p in (sqlfiles.sql_root() / "intermediate").glob("*.sql"))
    assert len(models) >= 12
    untested = []
    for model in models:
        path = HERE / f"test_{model}.py"
        if not path.is_file():
            untested.append(model)
            continue
        spec = importlib.util.spec_from_file_location(f"unit_{model}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert model == module.MODEL
        assert module.CASES and module.MUTANTS, f"{path.name} needs cases and mutants"
    assert not untested, f"intermediate models without unit tests: {untested}"
