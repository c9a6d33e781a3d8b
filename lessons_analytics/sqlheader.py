"""The header comment of a model (``sql/``) or a query (``queries/``), parsed and checked.

A header is the run of ``--`` lines a file opens with, before its ``with``/``select``::

    -- int_session_bases_linked: the bases of each session.
    -- Grain: one row per (session_id, base_path).
    -- key: session_id, base_path
    -- incremental: session_id (rows depend on their own session only)

The first line names the object (the file's stem) and says what it holds; ``Grain:`` says
what one row is, in words. Directives are lowercase and machine-read:

- ``key: a, b (nullable), c`` the columns that together are unique per row (the audits of
  ``audits.py`` check them); a column marked ``(nullable)`` may be null, the others may not.
  Every intermediate and mart model has one: the grain in words is for people, the key for
  the audits.
- ``materialized: view``, ``table`` or ``temp`` (default: views for staging, tables
  elsewhere); ``temp``: computed once per build for the models that read it, and kept in the
  warehouse file only as a view (``transform.materialization``).
- ``incremental: <column>`` the model's rows depend only on their own value of the column;
  an incremental build (``refresh.build_sessions``) then refreshes only the touched values.

Any other line is prose. A query's ``$name`` bind parameters must each be named somewhere in
its header, so the header stays the list of what a caller passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from lessons_analytics.errors import LessonsAnalyticsError
from lessons_analytics.sqlfiles import layer_files, queries_root

Materialized = Literal["view", "table", "temp"]

_IDENT = r"[a-z_][a-z0-9_]*"
_TITLE = re.compile(rf"^--\s*({_IDENT}):\s*(\S.*)$")
# at the start of a line, or as a sentence inside one ("... other). Grain: one row per x.")
_GRAIN = re.compile(r"(?:^--\s*|\.\s+)Grain:\s*(.*?)(?:\.\s+[A-Z].*)?$")
_DIRECTIVE = re.compile(r"^--\s*(key|materialized|incremental):\s*(.*)$")
_KEY_COLUMN = re.compile(rf"^({_IDENT})(\s+\(nullable\))?$")
_INCREMENTAL = re.compile(rf"^({_IDENT})\b")
# `$name` outside quotes and comments; the header check ignores strings with a `$` in them
_PARAM = re.compile(r"(?<![\w$])\$([a-z_][a-z0-9_]*)")


class HeaderError(LessonsAnalyticsError):
    """A SQL file's header is missing or does not parse."""


@dataclass(frozen=True)
class KeyColumn:
    name: str
    nullable: bool = False


@dataclass(frozen=True)
class Header:
    name: str
    kind: Literal["model", "query"]
    layer: str | None  # staging / intermediate / marts; None for a query
    purpose: str
    grain: str
    key: tuple[KeyColumn, ...]
    materialized: Materialized
    incremental: str | None
    parameters: tuple[str, ...]  # the `$name`s its body binds, sorted

    @property
    def key_columns(self) -> tuple[str, ...]:
        return tuple(col.name for col in self.key)


def header_lines(text: str) -> list[str]:
    """The leading comment lines of a SQL file (blank lines inside the run are skipped)."""
    lines: list[str] = []
    for line in text.lstrip("\ufeff").splitlines():
        stripped = line.strip()
        if stripped.startswith("--"):
            lines.append(stripped)
        elif stripped:
            break
    return lines


def parse(text: str, name: str | None = None, layer: str | None = None) -> Header:
    """The header of ``text``, the SQL of object ``name`` (a model of ``layer``, or a query
    when ``layer`` is None; without ``name``, the one its first line gives). Raises
    ``HeaderError`` naming the object and what is wrong."""
    lines = header_lines(text)
    title = _TITLE.match(lines[0]) if lines else None
    if name is None:
        name = title.group(1) if title else "<sql>"
    if title is None or title.group(1) != name:
        raise HeaderError(f"{name}: the first line must be '-- {name}: <what it holds>'")
    grains = [m.group(1).strip() for m in map(_GRAIN.search, lines) if m]
    if len(grains) != 1 or not grains[0]:
        raise HeaderError(f"{name}: needs exactly one non-empty '-- Grain:' line")
    directives: dict[str, str] = {}
    for match in filter(None, map(_DIRECTIVE.match, lines)):
        if match.group(1) in directives:
            raise HeaderError(f"{name}: '{match.group(1)}:' given twice")
        directives[match.group(1)] = match.group(2).strip()
    key = _key(name, directives.get("key"))
    if layer in ("intermediate", "marts") and not key:
        raise HeaderError(f"{name}: a {layer} model needs a '-- key:' line")
    parameters = tuple(sorted(set(_PARAM.findall(_without_comments(text)))))
    header_text = "\n".join(lines)
    missing = [p for p in parameters if f"${p}" not in header_text]
    if missing:
        raise HeaderError(f"{name}: parameters not named in the header: {missing}")
    return Header(
        name=name,
        kind="query" if layer is None else "model",
        layer=layer,
        purpose=title.group(2).strip(),
        grain=grains[0],
        key=key,
        materialized=_materialized(name, layer, directives.get("materialized")),
        incremental=_incremental(name, directives.get("incremental")),
        parameters=parameters,
    )


def _key(name: str, text: str | None) -> tuple[KeyColumn, ...]:
    if text is None:
        return ()
    columns: list[KeyColumn] = []
    for part in text.split(","):
        match = _KEY_COLUMN.match(part.strip())
        if match is None:
            raise HeaderError(f"{name}: key column {part.strip()!r} is not 'name [(nullable)]'")
        columns.append(KeyColumn(match.group(1), nullable=match.group(2) is not None))
    if len({c.name for c in columns}) != len(columns):
        raise HeaderError(f"{name}: a key column is named twice")
    return tuple(columns)


def _materialized(name: str, layer: str | None, text: str | None) -> Materialized:
    default: Materialized = "view" if layer == "staging" else "table"
    if text is None:
        return default
    word = text.split(maxsplit=1)[0] if text else ""
    if word not in ("view", "table", "temp"):
        raise HeaderError(f"{name}: materialized must be 'view', 'table' or 'temp', not {text!r}")
    if layer == "staging" and word != "view":
        raise HeaderError(f"{name}: staging models are views")
    return "view" if word == "view" else "temp" if word == "temp" else "table"


def _incremental(name: str, text: str | None) -> str | None:
    if text is None:
        return None
    match = _INCREMENTAL.match(text)
    if match is None:
        raise HeaderError(f"{name}: incremental must name a column, not {text!r}")
    return match.group(1)


def _without_comments(text: str) -> str:
    """The SQL with comments and string literals blanked, so only real binds count."""
    return re.sub(r"'(?:[^']|'')*'|--[^\n]*", "''", text)


def model_header(path: Path) -> Header:
    return _parse_file(path, path.parent.name)


def query_header(path: Path) -> Header:
    return _parse_file(path, None)


@cache
def _cached(path: Path, layer: str | None, text: str) -> Header:
    return parse(text, path.stem, layer)


def _parse_file(path: Path, layer: str | None) -> Header:
    return _cached(path, layer, path.read_text(encoding="utf-8"))


def model_headers() -> list[Header]:
    """Every model's header, in build order."""
    return [model_header(path) for path in layer_files()]


def query_headers() -> list[Header]:
    """Every query's header, by name (what ``query --list`` shows)."""
    return [query_header(path) for path in sorted(queries_root().glob("*.sql"))]
