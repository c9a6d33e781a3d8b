"""The line lists of check and lint: one finding a line, as the base's files name it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: importing lint would import poison and yaml for `heads`
    from lessons_analytics.check import Failure
    from lessons_analytics.lint import Finding


def check(failures: Sequence[Failure]) -> list[str]:
    """The lines of one base's failed layout rules."""
    return [str(failure) for failure in failures]


def lint(findings: Sequence[Finding]) -> list[str]:
    """The lines of one base's lint findings."""
    return [str(finding) for finding in findings]
