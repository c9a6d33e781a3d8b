"""``pytest -m real`` selects the tests that read ../shared/corpora: a module that names the
corpora carries the ``real`` mark (on the module, or on each test or parameter that reads
them)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).parent


def test_every_module_reading_the_corpora_is_marked_real() -> None:
    this = Path(__file__).name
    readers = [
        p
        for p in sorted(TESTS.glob("test_*.py"))
        if '"corpora"' in p.read_text(encoding="utf-8") and p.name != this
    ]
    assert len(readers) >= 9  # the modules of this suite at the time of writing
    unmarked = [p.name for p in readers if "pytest.mark.real" not in p.read_text(encoding="utf-8")]
    assert unmarked == []
