"""The metrics of metrics.md as Polars frames and as the ``--json`` documents of cli.md.

Every function takes an open warehouse connection and ``Filters``; the SQL lives in
``queries/`` with its parameters bound, never formatted in.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import orjson

from lessons_analytics import sqlfiles, warehouse
from lessons_analytics.documents import (
    BodiesBase,
    BodiesDocument,
    CostDocument,
    CostWeek,
    CoverageBase,
    CoverageDocument,
    CoverageWeek,
    HeadsBase,
    HeadsDocument,
    HitRef,
    HitsBase,
    HitsClass,
    HitsDocument,
    HitsLesson,
    RecalledDocument,
    RecallEvidence,
    RitualCost,
)
from lessons_analytics.engine import arrow_stream, duckdb
from lessons_analytics.errors import BaseNotFound, InvalidValue, SessionNotFound
from lessons_analytics.lessonbase.shapes import LESSONS_DIR
from lessons_analytics.redact import CleanJson, first_needles, redact, redact_frame, redact_tree
from lessons_analytics.settings import Thresholds, query_params

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

    import polars as pl

_PARAM = re.compile(r"\$([a-z_][a-z0-9_]*)")
_R = TypeVar("_R")


@dataclass(frozen=True)
class Filters:
    bases: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None

    def params(self) -> dict[str, Any]:
        return {
            "bases": list(self.bases) or None,
            "since": self.since,
            "until": self.until,
        }

    def partial_weeks(self) -> set[str]:
        """ISO weeks (``YYYY-Www``) that ``since``/``until`` cut: a week series shows them
        marked ``partial`` (in ``by_week`` and the tables) rather than as a trend point
        whose counts are a few days' worth."""
        cut = set()
        if self.since is not None and not _week_start(self.since):
            cut.add(_week_label(self.since))
        if self.until is not None and not _week_start(self.until):
            cut.add(_week_label(self.until))  # the until instant itself is excluded
        return cut


def _week_start(at: datetime) -> bool:
    at = at.astimezone(UTC)
    return at.isoweekday() == 1 and at.time() == datetime.min.time()


def _week_label(at: datetime) -> str:
    year, week, _ = at.astimezone(UTC).isocalendar()
    return f"{year}-W{week:02d}"


def mark_partial(weeks: list[dict[str, Any]], filters: Filters) -> list[dict[str, Any]]:
    cut = filters.partial_weeks()
    return [{**week, "partial": week["week"] in cut} for week in weeks]


def parse_when(text: str | None, *, end_of_day: bool = False) -> datetime | None:
    """``YYYY-MM-DD`` or an ISO timestamp, as UTC. A bare date given as an upper bound
    includes that whole day."""
    if text is None:
        return None
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    if end_of_day and len(text) == 10:
        value += timedelta(days=1)
    return value


def filter_bases(con: duckdb.DuckDBPyConnection, paths: tuple[Path, ...]) -> tuple[str, ...]:
    """The warehouse bases that ``--base`` paths name. A path names a base as its
    ``LESSONS/`` folder or as the project holding it, on disk or as the warehouse recorded it
    (a base imported from another machine need not exist here). A path that names no base
    of the warehouse is an error naming it: a typo must not filter everything away."""
    known = {row[0] for row in con.execute("select base_path from dim_bases").fetchall()}
    out = []
    for path in paths:
        absolute = Path(path).expanduser().absolute()
        on_disk = [p.resolve() for p in (absolute, absolute / LESSONS_DIR)
                   if p.name == LESSONS_DIR and p.is_dir()]  # fmt: skip
        candidates = [str(p) for p in (*on_disk, absolute, absolute / LESSONS_DIR)]
        match = next((c for c in candidates if c in known), None)
        if match is not None:
            out.append(match)
        elif on_disk:
            raise BaseNotFound(
                f"--base {path}: {on_disk[0]} is not in the warehouse;"
                f" run `lessons-analytics ingest --base {path}` first"
            )
        else:
            raise BaseNotFound(
                f"--base {path}: no {LESSONS_DIR}/ folder there, and no such base in the warehouse"
            )
    return tuple(out)


def has_bases(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the warehouse holds any lesson base (a first run over logs alone has none)."""
    rows = con.execute("select count(*) from dim_bases").fetchall()
    return bool(rows[0][0])


def resolve_session(con: duckdb.DuckDBPyConnection, text: str) -> str:
    """The session id that ``text`` is, or is the unique prefix of (retro's digest prints
    short ids). No match or several matches is ``SessionNotFound``."""
    rows = con.execute(
        "select session_id from fct_sessions where starts_with(session_id, ?)"
        " order by session_id limit 6",
        [text],
    ).fetchall()
    ids = [row[0] for row in rows]
    if text in ids or len(ids) == 1:
        return text if text in ids else str(ids[0])
    if not ids:
        raise SessionNotFound(
            f"--session {text}: no session in the warehouse has this id or prefix"
        )
    (count,) = con.execute(
        "select count(*) from fct_sessions where starts_with(session_id, ?)", [text]
    ).fetchall()[0]
    raise SessionNotFound(
        f"--session {text}: ambiguous prefix, {count} sessions start with it"
        f" ({', '.join(ids[:3])}{', ...' if count > 3 else ''}); give more characters"
    )


def check_pattern(con: duckdb.DuckDBPyConnection, pattern: str) -> None:
    """``InvalidValue`` naming ``pattern`` and the engine's complaint unless it is a regex
    DuckDB (RE2) compiles: the ritual queries would otherwise fail half-way."""
    reason = warehouse.regex_problem(con, pattern)
    if reason is not None:
        raise InvalidValue(f"PATTERN {pattern!r} is not a valid regex: {reason}")


def query(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> pl.DataFrame:
    """Run ``queries/<name>.sql`` binding the parameters it names (absent ones are null)."""
    sql = sqlfiles.load(name)
    return run_sql(con, sql, params)


def query_rows(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    """``query(...).to_dicts()`` without Polars: the documents of heads, coverage, hits and
    bodies need only rows, and importing Polars was two thirds of those commands' time.
    DuckDB's Python values are the ones Polars gives back (test_metrics holds them equal)."""
    sql = sqlfiles.load(name)
    memo = _MEMO.get()
    if memo is not None and memo.con is con:
        # one memo for rows and frames: the report asks some queries both ways
        return run_sql(con, sql, params).to_dicts()
    bound = _bound(sql, params)
    shared = _shared(con)
    if shared is not None:
        rows = shared.take(sql, bound)
        if rows is not None:
            return rows
    return _fetch(con, sql, bound)


def query_columns(
    con: duckdb.DuckDBPyConnection, name: str, columns: tuple[str, ...], **params: Any
) -> list[dict[str, Any]]:
    """``query_rows`` with only ``columns`` of each row, in no particular order. DuckDB
    builds a Python value for every cell it hands over (a timestamp with a zone costs
    about 6 µs), so a caller that sums a few columns of many rows asks for those alone:
    the ritual numbers read 4 of cost_calls' 14 columns, 0.2 s less on 13k calls."""
    sql = sqlfiles.load(name)
    memo = _MEMO.get()
    if memo is not None and memo.con is con:
        return run_sql(con, sql, params).select(columns).to_dicts()
    shown = ", ".join(sqlfiles.quote_identifier(column) for column in columns)
    return _fetch(con, f"select {shown} from (\n{sql}\n)", _bound(sql, params))


def _fetch_shared(
    con: duckdb.DuckDBPyConnection, sql: str, bound: dict[str, Any]
) -> list[dict[str, Any]]:
    """``_fetch``, or the rows ``rows_per_base`` fetched ahead for this exact question."""
    shared = _shared(con)
    return shared.rows(sql, bound) if shared is not None else _fetch(con, sql, bound)


def _fetch(con: duckdb.DuckDBPyConnection, sql: str, bound: dict[str, Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, bound)
    columns = [d[0] for d in cursor.description or []]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


# A row value as the JSON text orjson writes for the Python value DuckDB hands over, by
# the column's DuckDB type ({c}: the column); a TIMESTAMPTZ is a datetime in the session's
# zone, UTC (``warehouse.connect``), which orjson writes as isoformat does: microseconds
# only when there are some.
_JSON_VALUES = {
    "VARCHAR": "coalesce('\"' || {c} || '\"', 'null')",
    "BOOLEAN": "case when {c} is null then 'null' when {c} then 'true' else 'false' end",
    **dict.fromkeys(
        ("TINYINT", "SMALLINT", "INTEGER", "BIGINT",
         "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"),
        "coalesce(cast({c} as varchar), 'null')",
    ),
    # formatted as the naive timestamp of its epoch microseconds, the UTC wall time: a
    # strftime of a TIMESTAMPTZ goes through the zone (ICU) and costs twice as much
    "TIMESTAMP WITH TIME ZONE": (
        "case when {c} is null then 'null' when epoch_us({c}) % 1000000 = 0"
        " then '\"' || strftime(make_timestamp(epoch_us({c})), '%Y-%m-%dT%H:%M:%S+00:00\"')"
        " else '\"' || strftime(make_timestamp(epoch_us({c})), '%Y-%m-%dT%H:%M:%S.%f+00:00\"')"
        " end"
    ),
}  # fmt: skip

# a string orjson writes as it is between its quotes: printable ASCII but ``"`` and ``\\``
_PLAIN = r"[ !#-\[\]-~]*"
_RE2_SPECIAL = frozenset("\\.+*?()|[]{}^$")


def query_json(
    con: duckdb.DuckDBPyConnection,
    name: str,
    depth: int,
    order: tuple[str, ...],
    **params: Any,
) -> dict[str, CleanJson] | None:
    """Per ``base_path``, the rows ``query_rows`` gives for that base (without their
    base_path) as the JSON text of a list that ``redact.encode_json`` writes at ``depth``
    (the containers around the list) of a document, written by DuckDB: turning 10k rows into
    Python objects and encoding them was most of ``effect --json``. ``order``: the columns
    of the query's own order by, unique per row. None when a row is one this cannot write
    as orjson would (a column of another type, a string orjson escapes, another zone) or
    holds a string that ``redact`` changes: the caller then asks ``query_rows``.
    A base without rows has no entry."""
    sql = sqlfiles.load(name)
    return sql_json(con, sql, _bound(sql, params), depth, order)


def sql_json(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    bound: dict[str, Any],
    depth: int,
    order: tuple[str, ...],
) -> dict[str, CleanJson] | None:
    """``query_json`` of the query text ``sql`` with its values ``bound``."""
    described = con.execute(f"select * from (\n{sql}\n) limit 0", bound).description or []
    columns = [(d[0], str(d[1])) for d in described if d[0] != "base_path"]
    zone = con.execute("select current_setting('TimeZone')").fetchall()[0][0]
    if not columns or any(kind not in _JSON_VALUES for _, kind in columns) or zone != "UTC":
        return None
    item, key = " " * (2 * depth + 2), " " * (2 * depth + 4)
    pieces: dict[str, str] = {}
    values = []
    for i, (column, kind) in enumerate(columns):
        pieces[f"json_piece_{i}"] = (
            ("{\n" if i == 0 else ",\n") + key + orjson.dumps(column).decode() + ": "
        )
        at = _JSON_VALUES[kind].format(c=sqlfiles.quote_identifier(column))
        values.append(f"$json_piece_{i}, {at}")
    strings = ", ".join(sqlfiles.quote_identifier(c) for c, kind in columns if kind == "VARCHAR")
    needles = "|".join(
        "".join("\\" + ch if ch in _RE2_SPECIAL else ch for ch in n) for n in first_needles()
    )
    shown = ", ".join(sqlfiles.quote_identifier(c) for c in order)
    # each base's rows joined here, into the bytes of its whole list: 10k strings handed to
    # Python cost more than building them, and the text turned into a str, put in its
    # brackets and encoded again was three copies of 33 MB (D at 1.25 GB). The strings are
    # tested once per distinct value, not once per row: the evidence's paths and ids repeat
    # from row to row (D: 44k distinct values of 296k), and both regexes over every row were
    # nearly half of the query. ``redact`` and its needles judge each string by itself, so a
    # value a needle finds is exactly one to hand to ``redact``
    text = (
        f"with listed as materialized (\n{_unordered(sql, order)}\n),"
        " checked as (select"
        " coalesce(bool_and(coalesce(regexp_full_match(v, $json_plain), true)), true)"
        " as json_plain_all,"
        " coalesce(list(v) filter (where regexp_matches(lower(v), $json_needles)), [])"
        " as json_unsure"
        f" from (select distinct unnest([{strings}]::varchar[]) as v from listed))"
        f" select base_path, encode(concat($json_list_start, string_agg(json_row, $json_between"
        f" order by {shown}), $json_list_end)),"
        " any_value(json_plain_all), any_value(json_unsure)"
        f" from (select *, concat($json_start, {', '.join(values)}, $json_end) as json_row"
        " from listed) cross join checked group by base_path"
    )
    extra = {**pieces, "json_start": item, "json_end": "\n" + item + "}", "json_between": ",\n",
             "json_needles": needles, "json_plain": _PLAIN,
             "json_list_start": "[\n", "json_list_end": "\n" + " " * (2 * depth) + "]"}  # fmt: skip
    out: dict[str, CleanJson] = {}
    for base, rows, every_plain, unsure in con.execute(text, {**bound, **extra}).fetchall():
        if not every_plain or any(redact(v) != v for v in unsure):
            return None
        out[base] = CleanJson(rows)
    return out


# a query's last clause when it is an order by of plain columns, qualified or not
_FINAL_ORDER = re.compile(r"\border\s+by\s+([\w.,\s]+?)\s*\Z", re.IGNORECASE)


def _unordered(sql: str, order: tuple[str, ...]) -> str:
    """``sql`` without its final order by when that orders by ``order`` exactly, for a
    caller that orders the rows itself: DuckDB sorted every row, and then built the rows'
    JSON after the sort on one thread (``effect --json`` on D: 0.26 -> 0.19 s for
    this part). Any other ending (desc, a limit, a comment) is kept as it is."""
    found = _FINAL_ORDER.search(sql)
    if found is None:
        return sql
    named = tuple(part.strip().rsplit(".", 1)[-1] for part in found.group(1).split(","))
    return sql[: found.start()] if named == order else sql


_Key = tuple[str, tuple[tuple[str, object], ...]]

# The queries a report asks for each of its bases that are asked once for every base
# (``per_base``; ``stats`` too, ``rows_per_base``): each groups or lists rows of one base,
# from that base's rows alone, ordered by base_path first and then by a key unique within
# the base. Not here: cost_calls, cost_scope and cost_active (a session is in the scope of
# several bases, so a call is no one base's) and the few without an order (report_retired,
# ...). tests/test_report_per_base.py holds each to it.
PER_BASE = (
    "bases", "lesson_rituals", "lessons",
    "heads", "heads_by_method", "heads_by_week", "heads_histogram", "heads_reads",
    "coverage", "coverage_by_week",
    "hits", "hits_by_caught", "hits_by_class", "hits_by_lesson", "hits_list",
    "bodies", "bodies_by_lesson", "bodies_by_week",
    "report_evidence_hits", "report_evidence_body_reads", "report_evidence_sessions",
    "report_index_versions", "report_lesson_versions",
    "sign_hits", "sign_lessons",
    "effect_lessons", "effect_evidence", "effect_interventions", "effect_cost_weeks",
)  # fmt: skip


@dataclass
class _Memo:
    con: duckdb.DuckDBPyConnection
    frames: dict[_Key, pl.DataFrame] = field(default_factory=dict)
    # per_base: the SQL of the queries asked once for ``bases`` (see ``per_base``)
    bases: tuple[str, ...] = ()
    per_base: frozenset[str] = frozenset()
    # by_time: the SQL of the queries sliced from their unbounded answer, and the column
    # their $since and $until bound (see ``by_time``)
    by_time: dict[str, str] = field(default_factory=dict)
    parts: dict[_Key, dict[str, pl.DataFrame]] = field(default_factory=dict)
    # the questions asked ahead (``ahead``), by their key, and their one thread
    fetching: dict[_Key, Future[pl.DataFrame]] = field(default_factory=dict)
    pool: ThreadPoolExecutor | None = None
    read_only: bool | None = None  # the connection's access mode, once asked


_MEMO: ContextVar[_Memo | None] = ContextVar("lessons_analytics_query_memo", default=None)


@contextmanager
def remembering(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Inside it, a query run again on ``con`` with the same bound values returns the frame
    the first run returned, without running it. For a reader of a read-only connection (the
    report): its sections ask the same questions many times (the rituals' cost of the week
    is asked by the headline, the actions, the signs and the effects), and the answer cannot
    change while the connection only reads. Polars frames are not changed in place, so the
    shared frame is safe to hand out again."""
    memo = _Memo(con)
    token = _MEMO.set(memo)
    try:
        yield
    finally:
        _MEMO.reset(token)
        if memo.pool is not None:
            # a question under way ends (its cursor closed) before the caller's connection
            # may; one not started yet is dropped
            memo.pool.shutdown(cancel_futures=True)


def ahead(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> None:
    """Inside ``remembering(con)`` of a read-only connection: start running the question
    ``query(con, name, **params)`` will ask on a cursor of its own thread, which
    ``run_sql`` then takes instead of running it (the unbounded answer of a ``by_time``
    query; a ``per_base`` query as the caller would ask it is not started). DuckDB runs
    it without the GIL while this thread reads and builds the rest: a report's ritual
    questions, a third of its queries' time on D, are known before its sections ask them.
    Elsewhere nothing: a writer's cursor would not see what its open transaction wrote."""
    _ahead(con, sqlfiles.load(name), params)


def _ahead(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> None:
    """``ahead`` of the query text ``sql``."""
    memo = _MEMO.get()
    if memo is None or not asks_ahead(con):
        return
    bound = _bound(sql, params)
    if sql in memo.by_time:
        bound = {**bound, "since": None, "until": None}
    elif _one_of_many(memo, sql, bound) is not None:
        return
    key = _key(sql, bound)
    if key in memo.frames or key in memo.fetching:
        return
    if memo.pool is None:
        from concurrent.futures import ThreadPoolExecutor  # its import only where used

        memo.pool = ThreadPoolExecutor(max_workers=1)
    memo.fetching[key] = memo.pool.submit(on_cursor, _run, con, sql, bound)


def asks_ahead(con: duckdb.DuckDBPyConnection) -> bool:
    """Inside ``remembering(con)`` of a read-only connection: ``ahead`` starts questions."""
    memo = _MEMO.get()
    return memo is not None and memo.con is con and _reads_only(memo)


def _reads_only(memo: _Memo) -> bool:
    if memo.read_only is None:
        rows = memo.con.execute("select current_setting('access_mode')").fetchall()
        memo.read_only = bool(rows) and rows[0][0] == "read_only"
    return memo.read_only


def _taken(memo: _Memo, key: _Key) -> pl.DataFrame | None:
    """The answer asked ``ahead`` under ``key``, waited for; None when it was not asked
    ahead or had not started (it is dropped: the asker runs it sooner)."""
    future = memo.fetching.pop(key, None)
    if future is None or future.cancel():
        return None
    return future.result()


def remembers(con: duckdb.DuckDBPyConnection) -> bool:
    """Inside ``remembering(con)``: a query asked again is not run again."""
    memo = _MEMO.get()
    return memo is not None and memo.con is con


@contextmanager
def per_base(
    con: duckdb.DuckDBPyConnection, bases: Sequence[str], names: Iterable[str]
) -> Iterator[None]:
    """Inside ``remembering(con)``: a query of ``names`` asked for one base of ``bases``
    (``$bases`` a list of that one path) runs once for all of ``bases`` and each base is
    given its own rows of that answer. A report asks every question once per base, and
    most of a small query's time is the engine's start, not its rows: 3 bases ran 3 of
    each. Only for a query whose every row names its base (``base_path``), is computed
    from that base's rows alone and is ordered by ``base_path`` first, then by a key
    unique within the base: its rows for one base are then the rows it gives for that
    base alone, in the same order (tests/test_report_per_base.py holds each to it)."""
    memo = _MEMO.get()
    if memo is None or memo.con is not con or len(bases) < 2:
        yield
        return
    saved = memo.bases, memo.per_base
    memo.bases, memo.per_base = tuple(bases), frozenset(sqlfiles.load(n) for n in names)
    try:
        yield
    finally:
        memo.bases, memo.per_base = saved


@dataclass
class _Shared:
    """The rows of ``rows_per_base``: per question (asked for every base), each base's rows
    not yet handed out; and the questions being fetched ahead (``start``), by their key."""

    con: duckdb.DuckDBPyConnection
    bases: tuple[str, ...]
    names: frozenset[str]  # the SQL of the queries shared
    parts: dict[_Key, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    fetching: dict[_Key, Future[list[dict[str, Any]]]] = field(default_factory=dict)
    pool: ThreadPoolExecutor | None = None

    def take(self, sql: str, bound: dict[str, Any]) -> list[dict[str, Any]] | None:
        """``base``'s rows of the answer for every base, or None where the query is asked
        as it is: not shared, not for one of the bases, or asked again for that base (the
        rows handed out are the caller's, who may change them)."""
        one = bound.get("bases")
        if sql not in self.names or not isinstance(one, list) or len(one) != 1:
            return None
        base = one[0]
        if base not in self.bases:
            return None
        every = {**bound, "bases": list(self.bases)}
        key = _key(sql, every)
        parts = self.parts.get(key)
        if parts is None:
            parts = self.parts[key] = {b: [] for b in self.bases}
            for row in self.rows(sql, every):
                parts.setdefault(row["base_path"], []).append(row)
        return parts.pop(base, None)

    def ahead(self, name: str, params: dict[str, Any]) -> None:
        """Start fetching the answer for every base to ``name`` with ``params`` (``$bases``
        aside), for a ``take`` of the same question later (``stats`` on D: effect_lessons,
        0.05 s, while each base's rituals are timed: the command 0.44 -> 0.41 s)."""
        sql = sqlfiles.load(name)
        every = _bound(sql, {**params, "bases": list(self.bases)})
        if sql in self.names and _key(sql, every) not in self.parts:
            self.start(sql, every)

    def start(self, sql: str, bound: dict[str, Any]) -> None:
        """Start fetching the rows of ``sql`` with ``bound`` on a cursor of its own thread:
        DuckDB runs it while this thread asks and reads the others, and ``rows`` hands it
        over."""
        key = _key(sql, bound)
        if key in self.fetching:
            return
        if self.pool is None:
            from concurrent.futures import ThreadPoolExecutor  # its import only where used

            self.pool = ThreadPoolExecutor(max_workers=1)
        self.fetching[key] = self.pool.submit(on_cursor, _fetch, self.con, sql, bound)

    def rows(self, sql: str, bound: dict[str, Any]) -> list[dict[str, Any]]:
        """The rows of ``sql`` with ``bound``: those fetched ahead when their fetch has
        started, else fetched now (one not started yet is dropped: the asker is sooner)."""
        ahead = self.fetching.pop(_key(sql, bound), None)
        if ahead is None or ahead.cancel():
            return _fetch(self.con, sql, bound)
        return ahead.result()


_ROWS: ContextVar[_Shared | None] = ContextVar("lessons_analytics_rows_per_base", default=None)


@contextmanager
def rows_per_base(
    con: duckdb.DuckDBPyConnection, bases: Sequence[str], names: Iterable[str]
) -> Iterator[None]:
    """``per_base`` for ``query_rows`` outside ``remembering`` (without Polars): inside it,
    a query of ``names`` asked on ``con`` for one base of ``bases`` runs once for all of
    them, and each base is given its own rows of that answer, once. ``stats`` weighs each
    base on its own, with the same questions. Only for the queries of ``PER_BASE``, whose
    rows for one base are the rows they give for that base alone, in the same order."""
    if len(bases) < 2:
        yield
        return
    shared = _Shared(con, tuple(bases), frozenset(sqlfiles.load(n) for n in names))
    token = _ROWS.set(shared)
    try:
        yield
    finally:
        _ROWS.reset(token)
        if shared.pool is not None:
            # a fetch under way ends (its cursor closed) before the caller's connection may;
            # one not started yet is dropped
            shared.pool.shutdown(cancel_futures=True)


def _shared(con: duckdb.DuckDBPyConnection) -> _Shared | None:
    """The rows ``rows_per_base(con, ...)`` shares, when asked inside it."""
    shared = _ROWS.get()
    return shared if shared is not None and shared.con is con else None


def fetch_ahead(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> None:
    """Inside ``rows_per_base(con, ...)``: start fetching the answer for every base to the
    question ``query_rows(con, name, bases=[one base], **params)`` will ask (``_Shared.ahead``);
    elsewhere nothing."""
    shared = _shared(con)
    if shared is not None:
        shared.ahead(name, params)


@contextmanager
def by_time(con: duckdb.DuckDBPyConnection, columns: Mapping[str, str]) -> Iterator[None]:
    """Inside ``remembering(con)``: a query named in ``columns`` asked with ``$since`` or
    ``$until`` is answered by the rows of its answer without them (asked once) whose
    column ``columns[name]`` lies in [since, until). The report asks a ritual's calls for
    the week, the week before, the trend and all time. Only for a query whose $since and
    $until do nothing but keep the rows whose that column, shown as it is, lies in the
    window, and whose order does not depend on them."""
    memo = _MEMO.get()
    if memo is None or memo.con is not con:
        yield
        return
    saved = memo.by_time
    memo.by_time = {**saved, **{sqlfiles.load(n): column for n, column in columns.items()}}
    try:
        yield
    finally:
        memo.by_time = saved


def _hashable(value: object) -> object:
    if not isinstance(value, list | tuple):
        return value
    # a list of scalars (cost_active's thousands of call ids) as it is, without a call each
    return tuple(_hashable(v) if isinstance(v, list | tuple) else v for v in value)


def _bound(sql: str, params: dict[str, Any]) -> dict[str, Any]:
    return {name: params.get(name) for name in set(_PARAM.findall(sql))}


def _key(sql: str, bound: dict[str, Any]) -> _Key:
    return (sql, tuple(sorted((name, _hashable(value)) for name, value in bound.items())))


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> pl.DataFrame:
    bound = _bound(sql, params)
    memo = _MEMO.get()
    if memo is None or memo.con is not con:
        return _run(con, sql, bound)
    key = _key(sql, bound)
    frame = memo.frames.get(key)
    if frame is None:
        base = _one_of_many(memo, sql, bound)
        since, until = bound.get("since"), bound.get("until")
        if base is not None:
            frame = _base_part(memo, con, sql, {**bound, "bases": list(memo.bases)}, base)
        elif sql in memo.by_time and (since is not None or until is not None):
            import polars as pl

            every = run_sql(con, sql, {**bound, "since": None, "until": None})
            at = pl.col(memo.by_time[sql])
            frame = every.filter(
                at.is_not_null(),
                *([] if since is None else [at >= since]),
                *([] if until is None else [at < until]),
            )
        else:
            taken = _taken(memo, key) if memo.fetching else None
            frame = taken if taken is not None else _run(con, sql, bound)
        memo.frames[key] = frame
    return frame


def _base_part(
    memo: _Memo, con: duckdb.DuckDBPyConnection, sql: str, bound: dict[str, Any], base: str
) -> pl.DataFrame:
    """``base``'s rows of the answer for every base (split once, in the answer's order)."""
    key = _key(sql, bound)
    parts = memo.parts.get(key)
    if parts is None:
        parts = memo.parts[key] = _split_by_base(run_sql(con, sql, bound))
    # a base without rows: the answer's columns, no rows (the answer is remembered)
    return parts[base] if base in parts else run_sql(con, sql, bound).clear()


def _split_by_base(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """``frame``'s rows per ``base_path``, each base's in the frame's order: a slice where a
    base's rows lie together (nearly every answer lists them base after base), else the
    rows gathered by position. The positions are found in Python: Polars' ``partition_by``
    hands even a frame of five rows to its thread pool, whose threads wait for a core while
    DuckDB answers the report's questions ahead on both (D: its 48 splits took 18 ms of CPU
    and 0.10-0.14 s of wall time; the report 1.375 -> 1.331 s, medians of 11 alternated)."""
    rows: dict[str, list[int]] = {}
    for at, base in enumerate(frame.get_column("base_path").to_list()):
        rows.setdefault(str(base), []).append(at)
    return {
        base: frame.slice(at[0], len(at)) if at[-1] - at[0] == len(at) - 1 else frame[at]
        for base, at in rows.items()
    }


def _one_of_many(memo: _Memo, sql: str, bound: dict[str, Any]) -> str | None:
    """The base a ``per_base`` query is asked for, when it is one of the memo's bases."""
    one = bound.get("bases")
    if sql in memo.per_base and isinstance(one, list) and len(one) == 1:
        return one[0] if one[0] in memo.bases else None
    return None


def _run(con: duckdb.DuckDBPyConnection, sql: str, bound: dict[str, Any]) -> pl.DataFrame:
    import polars as pl  # here: the documents of most commands need no frame (query_rows)

    # Through the Arrow PyCapsule stream, not .pl(): .pl() builds a pyarrow Table first, and
    # importing pyarrow cost every analysis command about 0.15 s; the frames are equal.
    return pl.DataFrame(arrow_stream(con, sql, bound))


def known_bases(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[str]:
    """The warehouse's bases that pass the filters, sorted."""
    return _bases(con, filters)


def _bases(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[str]:
    return [r["base_path"] for r in query_rows(con, "bases", bases=filters.params()["bases"])]


def _by_base(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["base_path"]: row for row in rows}


def _grouped(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        base = row.pop("base_path")
        out.setdefault(base, []).append(row)
    return out


def envelope(command: str, bases: list[dict[str, Any]], key: str = "bases") -> dict[str, Any]:
    return {"schema": schema(command), "generated_at": generated_at(), key: bases}


def schema(command: str) -> str:
    return f"lessons-analytics/{command}/1"


def generated_at() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


HEADS_FIELDS = ("reads", "head_reads", "prefix_reads", "head_20_60", "blind_reads",
                "truncated_reads", "sessions_reading_index", "blind_sessions")  # fmt: skip


def heads_document(con: duckdb.DuckDBPyConnection, filters: Filters) -> HeadsDocument:
    params = filters.params()
    totals = _by_base(query_rows(con, "heads", **params))
    methods = _grouped(query_rows(con, "heads_by_method", **params))
    weeks = _grouped(query_rows(con, "heads_by_week", **params))
    out: list[HeadsBase] = []
    for base in _bases(con, filters):
        row = totals.get(base, {})
        entry: dict[str, Any] = {"base": base}
        entry.update({name: int(row.get(name) or 0) for name in HEADS_FIELDS})
        entry["by_method"] = {m["method"]: m["reads"] for m in methods.get(base, [])}
        entry["by_week"] = mark_partial(weeks.get(base, []), filters)
        # the counts are spelt once, in HEADS_FIELDS; test_documents holds them to the type
        out.append(cast(HeadsBase, entry))
    return {"schema": schema("heads"), "generated_at": generated_at(), "bases": out}


COVERAGE_WEEK_FIELDS = ("week", "sessions_in_scope", "sessions_reading_index",
                        "sessions_recalled", "coverage")  # fmt: skip


def coverage_document(con: duckdb.DuckDBPyConnection, filters: Filters) -> CoverageDocument:
    params = filters.params()
    totals = _by_base(query_rows(con, "coverage", **params))
    weeks = _grouped(query_rows(con, "coverage_by_week", **params))
    out: list[CoverageBase] = []
    for base in _bases(con, filters):
        row = totals.get(base, {})
        out.append(
            {
                "base": base,
                "sessions_in_scope": int(row.get("sessions_in_scope") or 0),
                "sessions_reading_index": int(row.get("sessions_reading_index") or 0),
                "sessions_recalled": int(row.get("sessions_recalled") or 0),
                "coverage": row.get("coverage"),
                "index_read_share": row.get("index_read_share"),
                "by_week": cast(
                    list[CoverageWeek],
                    mark_partial(
                        [{k: w[k] for k in COVERAGE_WEEK_FIELDS} for w in weeks.get(base, [])],
                        filters,
                    ),
                ),
            }
        )
    return {"schema": schema("coverage"), "generated_at": generated_at(), "bases": out}


RECALL_KINDS = ("recalled", "index_only", "not_recalled", "unknown")


def hits_document(con: duckdb.DuckDBPyConnection, filters: Filters) -> HitsDocument:
    params = filters.params()
    totals = _by_base(query_rows(con, "hits", **params))
    caught = _grouped(query_rows(con, "hits_by_caught", **params))
    lessons = _grouped(query_rows(con, "hits_by_lesson", **params))
    classes = _grouped(query_rows(con, "hits_by_class", **params))
    listing = _grouped(query_rows(con, "hits_list", **params))
    out: list[HitsBase] = []
    for base in _bases(con, filters):
        row = totals.get(base, {})
        by_caught: dict[str, int] = {}
        cross: dict[str, dict[str, int]] = {}
        for c in caught.get(base, []):
            by_caught[c["caught"]] = by_caught.get(c["caught"], 0) + c["hits"]
            cross.setdefault(c["recall"], {})[c["caught"]] = c["hits"]
        out.append(
            {
                "base": base,
                "hits": int(row.get("hits") or 0),
                "independent_hits": int(row.get("independent_hits") or 0),
                "sessions_found": int(row.get("sessions_found") or 0),
                "by_recall": {k: int(row.get(k) or 0) for k in RECALL_KINDS},
                "by_caught": by_caught,
                "recall_by_caught": cross,
                "top3_share": row.get("top3_share"),
                "max_class": {"class": row.get("max_class"), "share": row.get("max_class_share")},
                "by_class": cast(list[HitsClass], classes.get(base, [])),
                "disagreements": [_hit_ref(h) for h in listing.get(base, []) if h["disagrees"]],
                "lessons": [
                    cast(HitsLesson, {"id": item.pop("lesson_id"), **item})
                    for item in lessons.get(base, [])
                ],
            }
        )
    return {"schema": schema("hits"), "generated_at": generated_at(), "bases": out}


def _hit_ref(hit: dict[str, Any]) -> HitRef:
    keys = ("lesson_id", "file_path", "line_no", "session_id", "recorded_recalled", "recall",
            "missed_at", "caught_by")  # fmt: skip
    return cast(HitRef, {k: hit[k] for k in keys})


def bodies_document(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    divisor: float,
    large_bytes: int,
) -> BodiesDocument:
    """``divisor`` and ``large_bytes``: the settings thresholds.chars_per_token and
    thresholds.large_body_bytes (or the command's options); no default here."""
    params = {**filters.params(), "divisor": divisor, "large_bytes": large_bytes}
    totals = _by_base(query_rows(con, "bodies", **params))
    lessons = _grouped(query_rows(con, "bodies_by_lesson", **params))
    out: list[BodiesBase] = []
    for base in _bases(con, filters):
        row = totals.get(base, {})
        out.append(
            {
                "base": base,
                "reads": int(row.get("reads") or 0),
                "tokens": int(row.get("tokens") or 0),
                "large_reads": int(row.get("large_reads") or 0),
                "large_tokens": int(row.get("large_tokens") or 0),
                "large_share": row.get("large_share"),
                "lessons": [
                    {
                        "id": item["lesson_id"],
                        "reads": item["reads"],
                        "tokens": item["tokens"],
                        "body_bytes": item["body_bytes"],
                        "journal_share": item["journal_share"],
                        "large": item["is_large"],
                        "sessions": item["sessions"],
                    }
                    for item in lessons.get(base, [])
                ],
            }
        )
    return {"schema": schema("bodies"), "generated_at": generated_at(), "bases": out}


# the columns of queries/cost_calls.sql the numbers of a ritual are made of
RITUAL_COLUMNS = ("tool_use_id", "week", "timed", "duration_s")


def ritual_cost(
    con: duckdb.DuckDBPyConnection,
    pattern: str,
    filters: Filters,
    lesson: str | None,
    gap_cap_s: float,
) -> RitualCost:
    """One ritual's time (metrics.md §5) as an element of the ``cost`` document;
    ``gap_cap_s`` is the setting thresholds.gap_cap_s (or ``cost --gap-cap``)."""
    params = {**filters.params(), "pattern": pattern, "gap_cap_s": gap_cap_s}
    return _ritual_cost(con, params, query_rows(con, "cost_scope", **params)[0], filters, lesson)


def _ritual_cost(
    con: duckdb.DuckDBPyConnection,
    params: dict[str, Any],
    scope: dict[str, Any],
    filters: Filters,
    lesson: str | None,
) -> RitualCost:
    """``ritual_cost`` given the row of cost_scope of the same parameters."""
    calls = ritual_calls(con, params, active=True)
    timed = sorted(d for _, durations in calls.weeks.values() for d in durations)
    count = sum(n for n, _ in calls.weeks.values())
    seconds = exact_sum(timed)
    weeks = int(scope["weeks"] or 0)
    active = float(scope["active_seconds"] or 0.0)
    inside = calls.active_seconds or 0.0
    return {
        "pattern": params["pattern"],
        "lesson": lesson,
        "calls": count,
        "untimed_calls": count - len(timed),
        "total_hours": seconds / 3600,
        "hours_per_week": (seconds / 3600 / weeks) if weeks else None,
        "weeks": weeks,
        "by_week": cast(list[CostWeek], mark_partial(_hours_by_week(calls), filters)),
        "median_s": linear_quantile(timed, 0.5),
        "p90_s": linear_quantile(timed, 0.9),
        # the active time inside the calls, not their durations: see queries/cost_active.sql
        "share_of_active_time": (inside / active) if active else None,
        "sessions_in_scope": int(scope["sessions"] or 0),
    }


def exact_sum(values: list[float]) -> float:
    """The sum of ``values`` correctly rounded (``math.fsum``): the same float whatever
    the order the rows arrived in and whichever engine or library read them. (Polars'
    sum, used before, added in blocks and differed in the last digits above 128 values,
    which the documents print.)"""
    return math.fsum(values)


def linear_quantile(ordered: list[float], q: float) -> float | None:
    """The ``q`` quantile of the sorted ``ordered``, interpolated linearly between the two
    nearest ranks (position ``q * (n - 1)``): the definition of Polars' ``quantile(q,
    interpolation="linear")``, whose digits the documents printed, and of NumPy's default.
    None for no value."""
    if not ordered:
        return None
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    lower, upper = ordered[low], ordered[high]
    if lower == upper:
        return float(lower)
    return float((position - low) * (upper - lower) + lower)


@dataclass(frozen=True)
class RitualCalls:
    """The calls of ``queries/cost_calls.sql`` as a ritual's numbers use them: per ISO
    week of the call (None: a call without a time), its calls and the durations of its
    timed ones; and, when asked, the active seconds inside them (queries/cost_active.sql;
    0 without a call)."""

    weeks: dict[str | None, tuple[int, list[float]]]
    active_seconds: float | None = None


def ritual_calls(
    con: duckdb.DuckDBPyConnection, params: dict[str, Any], *, active: bool = False
) -> RitualCalls:
    """``RitualCalls`` of cost_calls with ``params``: grouped by week in DuckDB, which hands
    over a few lists instead of a Python row per call (13k calls on D: 4 columns of each
    were most of ``cost --rituals``). ``active`` (the params then bind ``gap_cap_s``): with
    the active seconds, from the same matched calls in the same statement
    (``_grouped_calls``); inside ``remembering`` that statement's answer is remembered, and
    without ``active`` the weeks come from the remembered rows of cost_calls."""
    sql = sqlfiles.load("cost_calls")
    weeks: dict[str | None, tuple[int, list[float]]] = {}
    if remembers(con) and not active:
        import polars as pl  # the memo's answers are frames already

        frame = run_sql(con, sql, params)
        timed = pl.col("duration_s").filter(pl.col("timed"))
        by_week = frame.group_by("week").agg(pl.len(), timed)
        for week, count, durations in by_week.iter_rows():
            weeks[week] = (count, durations)
        return RitualCalls(weeks)
    # in the memo too, with the active seconds: the grouped statement is one question known
    # before the calls are (``ahead``), where cost_active bound the ids of the memo's rows
    # (22k ids on D: binding them was half of its 45 ms)
    grouped = _grouped_calls(sql, active)
    rows = (
        run_sql(con, grouped, params).to_dicts()
        if remembers(con)
        else _fetch_shared(con, grouped, _bound(grouped, params))
    )
    inside = 0.0
    for row in rows:
        weeks[row["week"]] = (row["calls"], row["durations"])
        inside = float(row["active_seconds"]) if active else inside
    return RitualCalls(weeks, inside if active else None)


def _grouped_calls(sql: str, active: bool) -> str:
    """cost_calls (``sql``) grouped by week: its calls and timed durations, and with
    ``active`` the active seconds inside all of them (the same on every row): cost_active
    weighing these very calls (``_active_of_calls``), where handing their ids to Python
    and binding them back, then matching the commands again, cost 18 of a ritual's 82 ms
    in a fresh process on D."""
    counted = "count(*) as calls, coalesce(list(duration_s) filter (timed), []) as durations"
    # cost_calls without its order: the weeks come in no order and every caller sums or
    # sorts a week's durations itself (4 of a ritual's 28 ms warm on D went to the sort)
    calls = _unordered(sql, ("called_at", "tool_use_id"))
    if not active:
        return f"select week, {counted} from (\n{calls}\n) group by week"
    return (
        f"with ritual_calls as materialized (\n{calls}\n)\n"
        f"select week, {counted}, (\n{_active_of_calls()}\n) as active_seconds\n"
        "from ritual_calls group by week"
    )


# queries/cost_active.sql's CTEs of the calls it weighs, looked up by their ids
_ACTIVE_MATCHED = re.compile(
    r"^ids as \(\n.*?^\),\n\nmatched as \(\n.*?^\),\n", re.DOTALL | re.MULTILINE
)


@cache
def _active_of_calls() -> str:
    """queries/cost_active.sql weighing the calls of a ``ritual_calls`` CTE around it (the
    rows of cost_calls) instead of looking them up by ``$call_ids``: the same calls, as
    tool_use_id is fct_tool_calls' key, and both files stay the one owner of what they
    define. Its header, which names ``$call_ids``, is left out: the parameters bound are
    the ones the text names."""
    active = sqlfiles.load("cost_active")
    body = active[active.index("\nwith\n") + 1 :]
    if len(_ACTIVE_MATCHED.findall(body)) != 1:
        raise RuntimeError("queries/cost_active.sql: no one `ids` and `matched` to replace")
    matched = (
        "matched as (\n    select tool_use_id, session_id, called_at, result_at,"
        " from ritual_calls\n),\n"
    )
    out = _ACTIVE_MATCHED.sub(lambda _: matched, body)
    if "$call_ids" in out:
        raise RuntimeError("queries/cost_active.sql names $call_ids outside its matched calls")
    return out


def ritual_durations(
    con: duckdb.DuckDBPyConnection, filters: Filters, asked: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], list[float]]:
    """For each (base, pattern) of ``asked``: the durations of the timed calls that
    ``ritual_calls`` gives for the pattern with ``filters`` narrowed to that base, every
    week together (what a lesson's ritual costs is their sum).

    One statement for them all (``_rituals_question``): each distinct pattern is matched
    once over the span's calls, and the calls matched are then kept in the scope of each
    base that asked for them, as cost_calls keeps them (a session in the scope of the base
    in dim_session_scope). Asked one by one, each question matched its pattern over every
    call and built its base's scope again: `effect` on D asks four (three patterns), which
    took 0.41 -> 0.38 s as one statement (medians of 13, alternated). Inside
    ``remembering`` each is asked as ``ritual_calls`` asks it, whose answer the report's
    other sections share."""
    if remembers(con):
        out: dict[tuple[str, str], list[float]] = {}
        for base, pattern in asked:
            scoped = Filters((base,), filters.since, filters.until)
            calls = ritual_calls(con, {**scoped.params(), "pattern": pattern})
            out[(base, pattern)] = [d for _, durations in calls.weeks.values() for d in durations]
        return out
    if not asked:
        return {}
    sql, bound, patterns = _rituals_question(filters, asked)
    found = {
        (row["base_path"], patterns[row["ritual"]]): row["durations"]
        for row in _fetch_shared(con, sql, bound)
    }
    return {key: found.get(key, []) for key in asked}


def ritual_durations_ahead(
    con: duckdb.DuckDBPyConnection, filters: Filters, asked: Sequence[tuple[str, str]]
) -> None:
    """Inside ``rows_per_base(con, ...)``: start fetching what ``ritual_durations(con,
    filters, asked)`` will ask (``_Shared.start``); elsewhere nothing."""
    shared = _shared(con)
    if shared is not None and not remembers(con) and asked:
        sql, bound, _ = _rituals_question(filters, asked)
        shared.start(sql, bound)


def _rituals_question(
    filters: Filters, asked: Sequence[tuple[str, str]]
) -> tuple[str, dict[str, Any], list[str]]:
    """``ritual_durations``' statement, its values and its distinct patterns in the order
    the statement numbers them (each is bound as a value, one parameter apiece: RE2 compiles
    a pattern once only when it is a constant of the statement, and a pattern read from a
    column was compiled again for every call, 2.3 s on D)."""
    asked = list(dict.fromkeys(asked))  # a pair asked twice would count its calls twice
    patterns = list(dict.fromkeys(pattern for _, pattern in asked))
    bound: dict[str, Any] = {
        "since": filters.since,
        "until": filters.until,
        "bases": None,  # every call of the span: the bases' scopes are kept after matching
        "asked_bases": [base for base, _ in asked],
        "asked_rituals": [patterns.index(pattern) for _, pattern in asked],
    }
    bound.update({f"ritual_pattern_{i}": pattern for i, pattern in enumerate(patterns)})
    return _rituals_sql(len(patterns)), bound, patterns


@cache
def _rituals_sql(patterns: int) -> str:
    """cost_calls once per pattern (``$ritual_pattern_<i>``, without a base), its timed
    calls numbered by pattern, then each (base, pattern) asked with the durations of the
    calls in that base's scope. The file stays the one owner of what a ritual's call is."""
    calls = _unordered(sqlfiles.load("cost_calls"), ("called_at", "tool_use_id"))
    if not re.search(r"\$pattern\b", calls):
        raise RuntimeError("queries/cost_calls.sql names no $pattern to number")
    branches = "\nunion all\n".join(
        f"select {i} as ritual, session_id, duration_s from (\n"
        + re.sub(r"\$pattern\b", f"$ritual_pattern_{i}", calls)
        + "\n) where timed"
        for i in range(patterns)
    )
    return (
        f"with matched as (\n{branches}\n),\n\n"
        "asked as (\n"
        "    select unnest($asked_bases) as base_path, unnest($asked_rituals) as ritual\n"
        "),\n\n"
        "scope as (\n"
        "    select session_id, base_path, from dim_session_scope\n"
        "    where list_contains($asked_bases, base_path)\n"
        "),\n\n"
        "in_scope as (\n"
        "    select asked.base_path, asked.ritual, matched.duration_s,\n"
        "    from asked\n"
        "    inner join matched on asked.ritual = matched.ritual\n"
        "    semi join scope\n"
        "        on scope.session_id = matched.session_id and scope.base_path = asked.base_path\n"
        ")\n\n"
        "select base_path, ritual, list(duration_s) as durations,\n"
        "from in_scope\n"
        "group by base_path, ritual"
    )


def cost_ahead(con: duckdb.DuckDBPyConnection, filters: Filters, *, gap_cap_s: float) -> None:
    """``ahead``: the questions ``cost_document(con, filters, gap_cap_s=gap_cap_s)`` will
    ask of its lessons' rituals, each base's cost_scope and each ritual's calls grouped by
    week with the active seconds inside them (``ritual_calls``); elsewhere nothing."""
    if not asks_ahead(con):
        return
    grouped = _grouped_calls(sqlfiles.load("cost_calls"), True)
    for item in lesson_rituals(con, filters):
        scoped = Filters((item["base_path"],), filters.since, filters.until)
        params = {**scoped.params(), "pattern": item["ritual"], "gap_cap_s": gap_cap_s}
        _ahead(con, sqlfiles.load("cost_scope"), params)
        _ahead(con, grouped, params)


def _hours_by_week(calls: RitualCalls) -> list[dict[str, Any]]:
    """Calls and timed hours per ISO week of the call, by week (a call without a time
    first, as its week is null)."""
    weeks = calls.weeks
    ordered = sorted(weeks, key=lambda week: (week is not None, week or ""))
    return [
        {"week": week, "calls": weeks[week][0], "hours": exact_sum(weeks[week][1]) / 3600}
        for week in ordered
    ]


def lesson_rituals(
    con: duckdb.DuckDBPyConnection, filters: Filters, lesson: str | None = None
) -> list[dict[str, Any]]:
    """(base, lesson id, ritual regex) of lessons that declare a ritual."""
    return query_rows(con, "lesson_rituals", bases=filters.params()["bases"], lesson=lesson)


def cost_document(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    pattern: str | None = None,
    lesson: str | None = None,
    *,
    gap_cap_s: float,
) -> CostDocument:
    rituals: list[RitualCost] = []
    if pattern is not None:
        check_pattern(con, pattern)
        rituals.append(ritual_cost(con, pattern, filters, None, gap_cap_s))
    else:
        items = lesson_rituals(con, filters, lesson)
        patterns: dict[str, list[str]] = {}  # each base's rituals (two lessons may share one)
        for item in items:
            found = patterns.setdefault(item["base_path"], [])
            if item["ritual"] not in found:
                found.append(item["ritual"])
        measured = _bases_rituals(con, patterns, filters, gap_cap_s)
        for item in items:
            base, ritual = item["base_path"], item["ritual"]
            entry = measured[base][ritual]
            weeks = [CostWeek(**week) for week in entry["by_week"]]  # no week shared by two
            rituals.append({"base": base, **entry, "lesson": item["lesson_id"], "by_week": weeks})
    return {"schema": schema("cost"), "generated_at": generated_at(), "rituals": rituals}


def _bases_rituals(
    con: duckdb.DuckDBPyConnection,
    patterns: dict[str, list[str]],
    filters: Filters,
    gap_cap_s: float,
) -> dict[str, dict[str, RitualCost]]:
    """Per base, the cost of each of its rituals. Two bases or more are measured on two
    cursors of their own threads: DuckDB runs most of these small queries on one core, so
    one base's queries run while another's wait (``cost --rituals`` on D: 3 bases, 13
    queries). Not inside ``remembering``, whose memo is the connection's."""
    if remembers(con) or len(patterns) < 2:
        return {
            b: _base_rituals(con, b, shown, filters, gap_cap_s) for b, shown in patterns.items()
        }
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as pool:
        found = {
            base: pool.submit(on_cursor, _base_rituals, con, base, shown, filters, gap_cap_s)
            for base, shown in patterns.items()
        }
        return {base: future.result() for base, future in found.items()}


def _base_rituals(
    con: duckdb.DuckDBPyConnection,
    base: str,
    shown: list[str],
    filters: Filters,
    gap_cap_s: float,
) -> dict[str, RitualCost]:
    """The cost of each ritual of ``shown`` over the sessions of ``base``, which they
    share (one cost_scope)."""
    scoped = Filters((base,), filters.since, filters.until)
    scope: dict[str, Any] | None = None
    out: dict[str, RitualCost] = {}
    for ritual in shown:
        params = {**scoped.params(), "pattern": ritual, "gap_cap_s": gap_cap_s}
        if scope is None:
            scope = query_rows(con, "cost_scope", **params)[0]
        out[ritual] = _ritual_cost(con, params, scope, scoped, None)
    return out


def on_cursor(read: Callable[..., _R], con: duckdb.DuckDBPyConnection, *args: Any) -> _R:
    """``read(cursor, *args)`` on a cursor of ``con`` of its own (``warehouse.cursor``, for
    a thread of its own), closed after."""
    from lessons_analytics import warehouse

    other = warehouse.cursor(con)
    try:
        return read(other, *args)
    finally:
        other.close()


def recalled_document(
    con: duckdb.DuckDBPyConnection,
    lesson: str,
    session: str,
    before: datetime | None,
    filters: Filters,
) -> RecalledDocument:
    """Had ``lesson`` surfaced in ``session`` before ``before``, and the evidence."""
    row = query(con, "session_known", session=session).rows()[0]
    rows = query(
        con,
        "recalled",
        lesson=lesson,
        session=session,
        before=before,
        bases=filters.params()["bases"],
    ).to_dicts()
    evidence: list[RecallEvidence] = redact_tree(rows)  # it quotes transcripts
    kinds = {e["kind"] for e in evidence}
    if not row or not row[0]:
        status = "unknown"
    elif kinds & {"body", "quoted"}:
        status = "recalled"
    elif "index_row" in kinds:
        status = "index_only"
    else:
        status = "not_recalled"
    return {
        "schema": "lessons-analytics/recalled/1",
        "lesson": lesson,
        "session": session,
        "before": before.isoformat() if before else None,
        "status": status,
        "evidence": evidence,
    }


# ---------------------------------------------------------------- one frame per metric
# (what each holds is in its query file's header)


def _redacted(
    con: duckdb.DuckDBPyConnection, name: str, filters: Filters | None, params: dict[str, Any]
) -> pl.DataFrame:
    # the notebook's helpers: what they show leaves the warehouse, so it is redacted.
    # Parameters that are settings get their default unless given (`divisor=` ...)
    bound = {**query_params(Thresholds()), **(filters or Filters()).params(), **params}
    return redact_frame(query(con, name, **bound))


def heads(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/heads.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "heads", filters, params)


def heads_by_week(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/heads_by_week.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "heads_by_week", filters, params)


def heads_reads(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/heads_reads.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "heads_reads", filters, params)


def heads_histogram(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/heads_histogram.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "heads_histogram", filters, params)


def coverage(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/coverage.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "coverage", filters, params)


def coverage_by_week(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/coverage_by_week.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "coverage_by_week", filters, params)


def hits(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/hits.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "hits", filters, params)


def hits_list(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/hits_list.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "hits_list", filters, params)


def hits_by_lesson(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/hits_by_lesson.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "hits_by_lesson", filters, params)


def hits_by_caught(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/hits_by_caught.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "hits_by_caught", filters, params)


def hits_by_class(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/hits_by_class.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "hits_by_class", filters, params)


def bodies(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/bodies.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "bodies", filters, params)


def bodies_by_lesson(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/bodies_by_lesson.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "bodies_by_lesson", filters, params)


def bodies_by_week(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/bodies_by_week.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "bodies_by_week", filters, params)


def cost_calls(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, **params: object
) -> pl.DataFrame:
    """``queries/cost_calls.sql`` as a Polars frame, secrets redacted."""
    return _redacted(con, "cost_calls", filters, params)
