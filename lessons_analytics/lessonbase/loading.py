"""The lesson-base load stage: which bases the transcripts' working directories stand in,
whether any changed since the last run, and their rows into the raw base tables.

A base is re-read whole when its fingerprint (its files and the repository HEAD) changed;
the cwd -> base links are rewritten whenever they change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from lessons_analytics import warehouse
from lessons_analytics.engine import duckdb
from lessons_analytics.lessonbase import locate
from lessons_analytics.schema import BASE_TABLES, Str, base_frame
from lessons_analytics.sqlfiles import quote_identifier

if TYPE_CHECKING:
    from lessons_analytics.lessonbase.reader import BaseSnapshot

# The reader (and the parsers of a base's files under it) is imported where a base is read
# again: a run whose bases did not change, nearly every run, reads none.


@dataclass(frozen=True)
class BaseRefresh:
    reloaded: bool  # a base changed: every base table was re-read
    links_changed: bool  # the cwd -> base links changed
    links_only_added: bool  # ... and only by links for new working directories
    # every working directory of the warehouse with the bases above it, nearest first
    links: dict[str, list[str]] = field(default_factory=dict, compare=False)


def refresh_bases(con: duckdb.DuckDBPyConnection, extra_bases: list[Path]) -> BaseRefresh:
    """Re-read the bases when any changed since the last run, and the cwd -> base links."""
    links, by_cwd = _links(con)
    wanted = {base for _cwd, base in links}
    wanted |= {str(locate.resolve_base(path)) for path in extra_bases}
    fingerprints = {base: fingerprint(Path(base)) for base in sorted(wanted)}
    cwd_rows = [{"cwd": c, "base_path": b, "depth": d} for (c, b), d in sorted(links.items())]
    old = {
        tuple(row)
        for row in con.execute(
            f"select cwd, base_path, depth from {quote_identifier(LINK_TABLE)}"
        ).fetchall()
    }
    new = {(row["cwd"], row["base_path"], row["depth"]) for row in cwd_rows}
    if _known_fingerprints(con) == fingerprints and not _refused_rituals(con, _held_rituals(con)):
        if old != new:
            # the bases did not change: their links are a few rows, bound as lists (no Polars)
            con.execute(f"delete from {quote_identifier(LINK_TABLE)}")
            links_by_column = {
                name: [row.get(name) for row in cwd_rows] for name in BASE_TABLES[LINK_TABLE]
            }
            warehouse.insert_lists(con, LINK_TABLE, BASE_TABLES[LINK_TABLE], links_by_column)
        return BaseRefresh(False, old != new, old <= new, by_cwd)
    from lessons_analytics.lessonbase.reader import load_base  # see the imports

    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in BASE_TABLES}
    for path, stamp in fingerprints.items():
        snapshot = load_base(Path(path))
        for name, rows in snapshot_rows(snapshot, stamp).items():
            tables[name].extend(rows)
    tables[LINK_TABLE] = cwd_rows
    _keep_rituals_the_engine_reads(con, tables)
    for name, rows in tables.items():
        warehouse.replace_table(con, name, base_frame(name, rows))
    return BaseRefresh(True, old != new, False, by_cwd)


def _keep_rituals_the_engine_reads(
    con: duckdb.DuckDBPyConnection, tables: dict[str, list[dict[str, Any]]]
) -> None:
    """A lesson's ritual is matched by the engine's regexes (RE2), which refuse some of what
    Python's ``re``, and so ``lint``, accepts (a lookahead). One such ritual in the warehouse
    stopped every command that times rituals (`effect`, `stats`, `report`, `cost`) with a
    traceback. It is kept out: the lesson is loaded without a ritual, and the ritual is
    reported at its line with the engine's reason, as any input that could not be used."""
    from lessons_analytics.lessonbase.files import read_lesson  # see the imports

    lessons = tables["raw_lessons"]
    refused = _refused_rituals(con, {row["ritual"] for row in lessons})
    for row in lessons:
        reason = refused.get(row["ritual"])
        if reason is None:
            continue
        path = Path(row["file_path"])
        tables["raw_base_errors"].append(
            {
                "base_path": row["base_path"],
                "file": str(path),
                "line": read_lesson(path).key_line("ritual"),
                "reason": f"ritual {row['ritual']!r} is not a regex the engine (RE2) reads"
                f" ({reason}); its time is not measured",
            }
        )
        row["ritual"] = None


def _held_rituals(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The rituals the warehouse holds. One that the engine refuses was loaded before
    ``_keep_rituals_the_engine_reads`` existed: a run that finds one reads the bases again,
    which drops it, as a changed base would (a new salt for the fingerprints would have
    told `stats` that every base of every warehouse changed since its ingest)."""
    found = con.execute("select distinct ritual from raw_lessons where ritual is not null")
    return {ritual for (ritual,) in found.fetchall()}


def _refused_rituals(
    con: duckdb.DuckDBPyConnection, rituals: Iterable[str | None]
) -> dict[str, str]:
    """Each of ``rituals`` that the engine's regexes refuse, with the engine's reason."""
    wanted = sorted({ritual for ritual in rituals if ritual is not None})
    if not wanted:
        return {}
    # asked on a cursor of its own: a refused pattern fails its statement, and a failed
    # statement would abort the run's transaction
    asking = con.cursor()
    try:
        return {
            ritual: reason
            for ritual in wanted
            if (reason := warehouse.regex_problem(asking, ritual)) is not None
        }
    finally:
        asking.close()


def _links(
    con: duckdb.DuckDBPyConnection,
) -> tuple[dict[tuple[str, str], int], dict[str, list[str]]]:
    """(cwd, base) -> depth for every working directory a transcript names (0 = nearest),
    and each of those directories with its bases (none for most)."""
    cwds = [
        row[0]
        for table in ("raw_events", "raw_tool_calls")
        for row in con.execute(
            f"select distinct cwd from {quote_identifier(table)} where cwd is not null"
        ).fetchall()
    ]
    links: dict[tuple[str, str], int] = {}
    by_cwd: dict[str, list[str]] = {}
    for cwd in cwds:
        by_cwd[cwd] = [str(base) for base in locate.discover_bases(cwd)]
        for depth, base in enumerate(by_cwd[cwd]):
            links.setdefault((cwd, base), depth)
    return links, by_cwd


# Each field ``x`` of a BaseSnapshot fills the raw table ``raw_x``, except these two, whose
# tables say whose rows they are; raw_cwd_bases holds the links, which no snapshot has.
_TABLE_OF_FIELD = {"base": "raw_bases", "errors": "raw_base_errors"}
LINK_TABLE = "raw_cwd_bases"


def table_of(field_name: str) -> str:
    """The raw table a BaseSnapshot field is written to."""
    return _TABLE_OF_FIELD.get(field_name, f"raw_{field_name}")


def snapshot_rows(snapshot: BaseSnapshot, base_fingerprint: str) -> dict[str, list[dict[str, Any]]]:
    """The rows of every raw base table a snapshot fills, checked against BASE_TABLES.

    A row key that is not a column of its table raises ``KeyError``: a loader bug, which
    would otherwise turn into a silent null. Rows without ``base_path`` (the errors) get the
    snapshot's; a dict in a string column (a hit's extra fields) is stored as JSON."""
    base_path = snapshot.base["base_path"]
    out: dict[str, list[dict[str, Any]]] = {}
    for item in fields(snapshot):
        value = getattr(snapshot, item.name)
        table = table_of(item.name)
        columns = BASE_TABLES[table]
        rows = [{**value, "fingerprint": base_fingerprint}] if item.name == "base" else value
        out[table] = [_checked(table, columns, row, base_path) for row in rows]
    return out


def _checked(
    table: str, columns: dict[str, Any], row: dict[str, Any], base_path: str
) -> dict[str, Any]:
    unknown = set(row) - set(columns)
    if unknown:
        raise KeyError(f"{table} has no column {sorted(unknown)[0]!r}")
    out = {"base_path": base_path, **row} if "base_path" in columns else dict(row)
    for name, value in out.items():
        if isinstance(value, dict) and columns[name] == Str:
            out[name] = orjson.dumps(value).decode()
    return out


def fingerprint(base: Path) -> str:
    """The base's fingerprint (``bases.fingerprint``) under this schema's salt."""
    return locate.fingerprint(base, base_salt())


def base_salt() -> str:
    """A warehouse written with other base columns re-reads its bases once."""
    return repr(sorted((t, list(c)) for t, c in BASE_TABLES.items()))


def _known_fingerprints(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    # raw_bases exists: every run opens with warehouse.ensure_raw_tables (asking
    # information_schema whether it did cost each run 9 ms)
    return dict(con.execute("select base_path, fingerprint from raw_bases").fetchall())
