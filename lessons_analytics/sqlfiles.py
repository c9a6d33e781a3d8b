"""Find the SQL of ``sql/`` (warehouse layers) and ``queries/`` (metrics).

The files live at the top of the source tree; a built wheel carries them inside the package
(hatch ``force-include``). Both places are looked up, the package first.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

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


def quote_identifier(name: str) -> str:
    """A table or column name as a DuckDB identifier: double quotes, an inner quote
    doubled. The one way a name is put into SQL text; values are bound, never formatted."""
    if not name or "\x00" in name:
        raise ValueError(f"not an identifier: {name!r}")
    return '"' + name.replace('"', '""') + '"'


@cache
def load(name: str) -> str:
    """Text of a query (``coverage``) or a model (``marts/fct_reads``)."""
    for root in (queries_root(), sql_root()):
        path = root / f"{name}.sql"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise SqlFileNotFound(f"no SQL file named {name!r} in {queries_root()} or {sql_root()}")


def model_files() -> list[Path]:
    """Every model file, by layer and then by name: the order fingerprints read them in
    (``layer_files`` orders them for the build, which reads every file for its references)."""
    root = sql_root()
    return sorted((p for layer in LAYERS for p in (root / layer).glob("*.sql")), key=model_key)


def model_key(path: Path) -> tuple[str, str]:
    """A model file's layer and name: what fingerprints sort by and digest."""
    return path.parent.name, path.name


def digest_models(digest: Any, paths: list[Path] | None = None) -> None:
    """Feed ``digest`` (a hashlib object) every model file's layer, name and text, by layer
    and name: the one reading of the models that the fingerprints share. ``paths``: the
    model files when the caller has them (any order)."""
    for path in model_files() if paths is None else sorted(paths, key=model_key):
        digest.update("/".join(model_key(path)).encode())
        digest.update(path.read_bytes())


def models_fingerprint(paths: list[Path] | None = None) -> str:
    """Changes when any model file changes (its layer, name or text), so an upgrade
    rebuilds the layers. ``paths``: the model files, when the caller has them (in any order:
    they are read by layer and name, so a command's stale check need not order them for the
    build, which reads every file for its references)."""
    import hashlib  # here: what imports this module only to find its SQL does without it

    digest = hashlib.blake2b(digest_size=16)
    digest_models(digest, paths)
    return digest.hexdigest()


def layer_files() -> list[Path]:
    """Every model file in build order: layer by layer, and inside a layer each model after
    the models of that layer it names (then by name)."""
    root = sql_root()
    ordered: list[Path] = []
    for layer in LAYERS:
        ordered.extend(_dependency_order(sorted((root / layer).glob("*.sql"))))
    return ordered


def _dependency_order(paths: list[Path]) -> list[Path]:
    by_name = {p.stem: p for p in paths}
    needs = {
        p.stem: {n for n in re.findall(r"\b[a-z_][a-z0-9_]*\b", p.read_text()) if n in by_name}
        - {p.stem}
        for p in paths
    }
    done: list[str] = []
    while needs:
        ready = sorted(name for name, deps in needs.items() if deps <= set(done))
        if not ready:
            raise SqlFileNotFound(f"models reference each other in a cycle: {sorted(needs)}")
        done.extend(ready)
        for name in ready:
            del needs[name]
    return [by_name[name] for name in done]


_BOUND = re.compile(r"\$([a-z_][a-z0-9_]*)")
_SENTENCE_END = re.compile(r"\.(\s|$)")


class QueryEntry(TypedDict):
    """One query of ``query --list --json``."""

    name: str
    purpose: str
    parameters: list[str]


def query_catalog() -> list[QueryEntry]:
    """Every query of ``queries/``: name, one-line purpose (the header's first sentence) and
    parameters (the ``$names`` the SQL binds, in order of first use: what ``-p`` can set,
    read from the statement rather than the prose so the list cannot drift from it)."""
    out: list[QueryEntry] = []
    for path in sorted(queries_root().glob("*.sql")):
        text = path.read_text(encoding="utf-8")
        header = []
        for line in text.splitlines():
            if not line.startswith("--"):
                break
            words = line.removeprefix("--").strip()
            if words.lower().startswith(("grain:", "parameters:")):
                break
            header.append(words)
        purpose = " ".join(header).removeprefix(f"{path.stem}:").strip()
        end = _SENTENCE_END.search(purpose)
        body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("--"))
        out.append(
            {
                "name": path.stem,
                "purpose": purpose[: end.start() + 1] if end else purpose,
                "parameters": list(dict.fromkeys(_BOUND.findall(body))),
            }
        )
    return out
