from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ["TZ"] = "UTC"
os.environ["NO_COLOR"] = "1"
os.environ["COLUMNS"] = "120"

GOLDEN = Path(__file__).parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="Rewrite tests/golden/*.txt.")


@pytest.fixture()
def golden(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """``golden(name, text)``: compare with tests/golden/<name>.txt (or rewrite it)."""
    update = request.config.getoption("--update-golden")

    def check(name: str, text: str) -> None:
        path = GOLDEN / f"{name}.txt"
        if update or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8"), f"differs from {path} (--update-golden)"

    return check
