"""Find the SQL of ``sql/`` (warehouse layers) and ``queries/`` (metrics).

The files live at the top of the source tree; a built wheel carries them inside the package
(hatch ``force-include``). Both places are looked up, the package first.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from lessons_analytics.errors import SqlFileNotFound

_PACKAGE = Path(__file__).resolve().parent
LAYERS = ("staging", "intermediate", "marts")


def _root(kind: str) -> Path:
    for candidate in (_PACKAGE / kind, _PACKAGE.parent / kind):
        if candidate.is_dir():
            return candidate
    raise SqlFileNotFound(f"no {kind}/ folder next to {_PACKAGE}")


def sql_root() -> Path:
    return _root("sql")


def queries_root() -> Path:
    return _root("queries")


@cache
def load(name: str) -> str:
    """Text of a query (``coverage``) or a model (``marts/fct_reads``)."""
    for root in (queries_root(), sql_root()):
        path = root / f"{name}.sql"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise SqlFileNotFound(f"no SQL file named {name!r} in {queries_root()} or {sql_root()}")


def layer_files() -> list[Path]:
    """Every model file in build order: layer by layer, sorted by name inside a layer."""
    root = sql_root()
    return [p for layer in LAYERS for p in sorted((root / layer).glob("*.sql"))]


def query_names() -> list[str]:
    return sorted(p.stem for p in queries_root().glob("*.sql"))
