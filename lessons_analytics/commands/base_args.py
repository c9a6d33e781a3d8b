"""The positional BASE and ``--base`` of the commands that read a base (check, lint, cards,
stats): one tuple of bases from the two.

Its own module, not ``commands.common``: these commands need no warehouse, and importing
``common`` (DuckDB, Polars, the metrics) cost them about 0.25 s of a 0.4 s run.
"""

from __future__ import annotations

from pathlib import Path

import click

from lessons_analytics.lessonbase.shapes import LESSONS_DIR


def base_paths(base: Path | None, bases: tuple[Path, ...]) -> tuple[Path, ...]:
    """The bases of a command taking both a positional BASE and ``--base``: either one, or
    both when they name the same base; two different bases is a usage error."""
    if base is not None and bases and {_key(b) for b in bases} != {_key(base)}:
        shown = ", ".join(str(b) for b in bases)
        raise click.UsageError(f"BASE {base} and --base {shown} differ; give one of them")
    return (base,) if base is not None else bases


def _key(path: Path) -> Path:
    resolved = Path(path).expanduser().resolve()
    if resolved.name != LESSONS_DIR and (resolved / LESSONS_DIR).is_dir():
        return resolved / LESSONS_DIR
    return resolved
