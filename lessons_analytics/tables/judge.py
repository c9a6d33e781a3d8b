"""The line lists of check and lint: one finding a line, as the base's files name it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def check(failures: Sequence[Any]) -> list[str]:
    """The lines of one base's failed layout rules."""
    return [str(failure) for failure in failures]


def lint(findings: Sequence[Any]) -> list[str]:
    """The lines of one base's lint findings."""
    return [str(finding) for finding in findings]
