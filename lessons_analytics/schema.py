"""The raw schema, declared once: every table the loader writes, column by column.

Each raw table is a row ``TypedDict`` (``EventRow``, ``ToolCallRow``, ...), from which
``RAW_TABLES`` reads the columns and their types. Parsers append rows of Python values to the
table's ``Columns`` in a ``Batch`` (``batch.events.add({...})``, held to the table's keys by
mypy); ``frame`` turns them into a Polars frame of exactly these types, which DuckDB then takes
through Arrow. Staging views in ``sql/staging`` rename, cast and de-duplicate from here.

Every row is checked against these types as it is added (``Columns.add``): a value of another
type (an object where a string belongs, an integer beyond 64 bits, a timestamp that is not
ISO 8601) raises ``BadValue``, and the loader rejects that one line, naming the column, instead
of letting the whole batch fail when its frame is built. Values are not coerced: a token count
written as ``"12"`` or ``true`` is a wrong type, not 12 or 1. A key that is no column raises
``UnknownColumn``, which the loader lets through: a parser bug, not bad input. The loader's
chunks add rows unchecked and have ``Columns.frame`` check them all at once, with the same
verdict; a chunk that holds a bad value is parsed again, checked row by row.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Generic,
    Literal,
    TypedDict,
    TypeVar,
    get_args,
    get_origin,
    get_type_hints,
)

from lessons_analytics.sqlfiles import quote_identifier

if TYPE_CHECKING:
    import polars as pl

# A column's kind, what its values are: ``duck_type`` names its DuckDB type, ``polars_type``
# its Polars type. Declared without Polars, whose import (0.2 s) a run that builds no frame
# (``stats``, a small ingest) does not pay: it is imported by the functions that build frames.
DType = Literal["str", "int", "bool", "float", "ts", "date", "str[]"]
Str: DType = "str"
Int: DType = "int"
Bool: DType = "bool"
Float: DType = "float"
Ts: DType = "ts"  # an instant: timestamptz, Datetime("us", "UTC")
Date: DType = "date"
StrList: DType = "str[]"

# An ISO 8601 instant as the transcript wrote it (a ``timestamptz`` column, parsed column-wise)
Instant = Annotated[str, "instant"]

# One TypedDict per raw table: the row a parser adds, its keys in table order. The table's
# columns (``RAW_TABLES``) are read from it, so the two cannot drift apart, and mypy holds
# every row a parser writes to its table's keys. Every key may be left out (null). A parser
# passes the values it found without coercing them: ``Columns.add`` checks them.


class FileRow(TypedDict):
    """``raw_files``: one row per transcript file, what has been consumed, so a re-run reads
    only new lines. Written whole by the loader, never from a transcript's values."""

    file_id: int
    path: str
    runtime: str
    file_kind: str
    size_bytes: int
    mtime_ns: int
    consumed_bytes: int
    consumed_lines: int
    head_hash: str
    context_json: str
    loaded_at: Instant


class LoadErrorRow(TypedDict, total=False):
    """``raw_load_errors``: a line (or file) that could not be loaded, and why."""

    file_id: int | None
    path: str | None
    line_no: int | None
    reason: str | None
    loaded_at: Instant | None


class EventRow(TypedDict, total=False):
    """``raw_events``: one row per transcript line (conversation and bookkeeping lines alike)."""

    file_id: int | None
    line_no: int | None
    runtime: str | None
    line_type: str | None
    subtype: str | None
    is_known_type: bool | None
    uuid: str | None
    parent_uuid: str | None
    session_id: str | None
    agent_id: str | None
    is_sidechain: bool | None
    ts: Instant | None
    cwd: str | None
    version: str | None
    message_id: str | None
    request_id: str | None
    role: str | None
    is_meta: bool | None
    is_api_error: bool | None
    model: str | None
    text: str | None
    input_tokens: int | None
    output_tokens: int | None
    cache_creation_tokens: int | None
    cache_read_tokens: int | None
    tool_uses: int | None
    tool_results: int | None


class ToolCallRow(TypedDict, total=False):
    """``raw_tool_calls``: one row per tool_use block / Codex call item."""

    file_id: int | None
    line_no: int | None
    runtime: str | None
    session_id: str | None
    agent_id: str | None
    uuid: str | None
    message_id: str | None
    tool_use_id: str | None
    tool_name: str | None
    ts: Instant | None
    cwd: str | None
    command: str | None
    file_path: str | None
    read_offset: int | None
    read_limit: int | None
    prompt_hash: str | None
    input_json: str | None


class ToolResultRow(TypedDict, total=False):
    """``raw_tool_results``: one row per tool_result block / Codex call output."""

    file_id: int | None
    line_no: int | None
    runtime: str | None
    session_id: str | None
    agent_id: str | None
    uuid: str | None
    tool_use_id: str | None
    ts: Instant | None
    is_error: bool | None
    result_chars: int | None
    result_lines: int | None
    text_head: str | None
    exit_code: int | None
    duration_s: float | None
    trunc_chars: int | None
    trunc_lines: int | None
    is_persisted: bool | None
    is_truncated: bool | None
    numbered_first: int | None
    numbered_last: int | None
    numbered_count: int | None
    head_part_lines: int | None
    tail_part_lines: int | None
    spawned_agent_id: str | None
    tur_start_line: int | None
    tur_num_lines: int | None
    tur_total_lines: int | None
    is_interrupt: bool | None
    is_rejected: bool | None


class FileReadRow(TypedDict, total=False):
    """``raw_file_reads``: one row per file a call read: the Read tool, or each file of a
    shell read command."""

    file_id: int | None
    tool_use_id: str | None
    read_idx: int | None
    path: str | None
    method: str | None
    range_start: int | None
    range_end: int | None
    tail_n: int | None
    head_n: int | None
    is_prefix: bool | None
    is_numbered: bool | None
    grep_pattern: str | None
    grep_flags: str | None
    n_files: int | None


class ReadTextRow(TypedDict, total=False):
    """``raw_read_texts``: the full result text of a read of an INDEX.md, the evidence of
    which rows were seen."""

    file_id: int | None
    tool_use_id: str | None
    text: str | None


class MentionRow(TypedDict, total=False):
    """``raw_mentions``: a lesson id seen in a tool result, a user message or a system/hook
    message."""

    file_id: int | None
    line_no: int | None
    session_id: str | None
    agent_id: str | None
    ts: Instant | None
    source: str | None
    tool_use_id: str | None
    lesson_id: str | None


class SubagentMetaRow(TypedDict, total=False):
    """``raw_subagent_meta``: a Claude Code 2.1.x subagent sidecar
    (``<sessionId>/subagents/agent-<id>.meta.json``)."""

    file_id: int | None
    path: str | None
    session_id: str | None
    agent_id: str | None
    agent_type: str | None
    description: str | None
    tool_use_id: str | None


ROW_TYPES: dict[str, type] = {
    "raw_files": FileRow,
    "raw_load_errors": LoadErrorRow,
    "raw_events": EventRow,
    "raw_tool_calls": ToolCallRow,
    "raw_tool_results": ToolResultRow,
    "raw_file_reads": FileReadRow,
    "raw_read_texts": ReadTextRow,
    "raw_mentions": MentionRow,
    "raw_subagent_meta": SubagentMetaRow,
}
_KIND_OF: dict[object, DType] = {str: Str, int: Int, bool: Bool, float: Float}


def _columns_of(row: type) -> dict[str, DType]:
    """The kind of each key of a row TypedDict (``X | None`` is a column of X)."""
    columns = {}
    for name, hint in get_type_hints(row, include_extras=True).items():
        kind = hint
        if get_origin(hint) is not Annotated:
            (kind,) = [arg for arg in get_args(hint) if arg is not type(None)] or [hint]
        columns[name] = Ts if get_origin(kind) is Annotated else _KIND_OF[kind]
    return columns


RAW_TABLES: dict[str, dict[str, DType]] = {
    table: _columns_of(row) for table, row in ROW_TYPES.items()
}


# tables whose rows belong to one transcript file (deleted when the file is rewritten)
FILE_TABLES = [
    name for name, cols in RAW_TABLES.items() if "file_id" in cols and name != "raw_files"
]


@dataclass(slots=True)
class FileState:
    """A transcript file's row of ``raw_files``: how much of it is already loaded."""

    file_id: int
    size_bytes: int
    mtime_ns: int
    consumed_bytes: int
    consumed_lines: int
    head_hash: str
    context: dict[str, Any]


def create_sql(table: str) -> str:
    """``create table if not exists`` for a raw table or a table of ``STORED_TABLES`` or
    ``META_TABLES``."""
    columns = {**RAW_TABLES, **STORED_TABLES, **META_TABLES}[table]
    cols = ", ".join(
        f"{quote_identifier(name)} {duck_type(dtype)}" for name, dtype in columns.items()
    )
    return f"create table if not exists {quote_identifier(table)} ({cols})"


def duck_type(dtype: DType) -> str:
    """The DuckDB type of a column kind; the one map (a frame of the kind's Polars types,
    ``polars_type``, goes to DuckDB through Arrow with the same types)."""
    found = _DUCK_TYPES.get(dtype)
    if found is None:
        raise TypeError(f"no DuckDB type for {dtype!r}")
    return found


_DUCK_TYPES: dict[DType, str] = {
    "str": "varchar",
    "int": "bigint",
    "bool": "boolean",
    "float": "double",
    "ts": "timestamptz",
    "date": "date",
    "str[]": "varchar[]",
}


def polars_type(dtype: DType) -> pl.DataType:
    """The Polars type of a column kind, for the functions that build frames."""
    import polars as pl

    types: dict[DType, pl.DataType] = {
        "str": pl.String(),
        "int": pl.Int64(),
        "bool": pl.Boolean(),
        "float": pl.Float64(),
        "ts": pl.Datetime("us", "UTC"),
        "date": pl.Date(),
        "str[]": pl.List(pl.String),
    }
    return types[dtype]


def polars_schema(columns: Mapping[str, DType]) -> dict[str, pl.DataType]:
    """A table's columns as a Polars schema."""
    return {name: polars_type(kind) for name, kind in columns.items()}


class BadValue(ValueError):
    """A value that does not fit its raw column; the line that produced it is rejected."""


class UnknownColumn(KeyError):
    """A row key that is no column of its table. A parser bug, never bad input: it is not
    counted as a bad line but stops the run, so the first test that reaches it fails."""


_INT64 = (-(1 << 63), (1 << 63) - 1)
_FLOAT_EXACT = 1 << 53  # an integer in a float column must keep its value
# what DuckDB and Polars both read as an instant: date, T, time, optional fraction and zone
_ISO_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?")


_KINDS: dict[str, dict[str, str]] = {table: dict(cols) for table, cols in RAW_TABLES.items()}


class _Instant:
    """Stands for the type of an instant's text: no value has it, so ``check_row`` looks at
    every timestamp closely."""


# the Python type a value of each column has when it fits
_PYTHON_TYPES = {"str": str, "ts": _Instant, "int": int, "bool": bool, "float": float}
_TYPES = {
    table: {col: _PYTHON_TYPES[kind] for col, kind in kinds.items()}
    for table, kinds in _KINDS.items()
}
_LOW, _HIGH = _INT64


def check_row(table: str, row: Mapping[str, object]) -> None:
    """Raise ``BadValue`` unless every value of ``row`` fits its column of ``table``, and
    ``UnknownColumn`` for a key that is no column of it. Values are not coerced: a token
    count written as ``"12"`` or ``true`` is a wrong type, not 12 or 1.

    A parser writes rows of few shapes (the same keys, values of the same types), so the
    shape's verdict is kept: once a shape has fitted, a row of that shape only has its
    integers' range and its instants looked at; anything else goes through ``_check``."""
    values = tuple(row.values())
    shape = (table, tuple(row), tuple(map(type, values)))
    plan = _PLANS.get(shape)
    if plan is None:
        _check(table, row)
        plan = _plan(table, row)
        if plan is None or len(_PLANS) >= _MAX_PLANS:
            return
        _PLANS[shape] = plan
        return
    ints, stamps = plan
    if ints is not None:
        numbers = ints(values)
        if min(numbers) < _LOW or max(numbers) > _HIGH:
            _check(table, row)
    for at in stamps:
        if not _is_instant(values[at]):
            _check(table, row)


# shape -> (the integers of int columns, positions of instants), for the shapes that fitted
_Plan = tuple[Callable[[tuple[Any, ...]], tuple[int, ...]] | None, tuple[int, ...]]
_PLANS: dict[tuple[str, tuple[str, ...], tuple[type, ...]], _Plan] = {}
_MAX_PLANS = 10_000


def _plan(table: str, row: Mapping[str, object]) -> _Plan | None:
    """What a row of this (fitting) shape still needs checked; None when its shape alone
    says too little (an integer in a float column)."""
    kinds = _KINDS[table]
    ints, stamps = [], []
    for at, (column, value) in enumerate(row.items()):
        kind = kinds[column]
        if type(value) is int:
            if kind == "float":
                return None
            ints.append(at)
        elif kind == "ts" and value is not None:
            stamps.append(at)
    if not ints:
        return None, tuple(stamps)
    # two positions at least, so the getter always gives a tuple
    return operator.itemgetter(*ints, ints[0]), tuple(stamps)


def _check(table: str, row: Mapping[str, object]) -> None:
    """``check_row`` value by value, raising for the first value (in row order) that does not
    fit."""
    types = _TYPES[table]
    for column, value in row.items():
        if column not in types:
            raise UnknownColumn(f"{table} has no column {column!r}")
        expected = types[column]
        # the common case in one test: a value of the column's own Python type (``type``
        # tells a bool from an int); the rest is looked at closely
        if type(value) is not expected:
            if value is not None and not _fits(_KINDS[table][column], value):
                raise _bad(table, column, value)
        elif expected is int and not _LOW <= value <= _HIGH:  # type: ignore[operator]
            raise _bad(table, column, value)


def _bad(table: str, column: str, value: object) -> BadValue:
    return BadValue(f"{table}.{column}: {_describe(value)} is not a valid {_KINDS[table][column]}")


def _fits(kind: str, value: object) -> bool:
    cls = type(value)
    if cls is str:
        return kind == "str" or (kind == "ts" and _is_instant(value))
    if cls is int:
        if kind == "int":
            return _LOW <= value <= _HIGH  # type: ignore[operator]
        return kind == "float" and abs(value) < _FLOAT_EXACT  # type: ignore[arg-type]
    if cls is bool:
        return kind == "bool"
    return cls is float and kind == "float"


def _read_instant(text: str) -> int | None:
    """The instant an ISO 8601 text names, in microseconds since 1970-01-01 UTC, or None when
    it is no instant. The one reading of a ``timestamptz`` column's text, whichever path
    stores it: a text without a zone is UTC, digits of a fraction beyond the sixth are
    dropped (as ``fromisoformat`` does), each value read by itself (a column-wise parse
    would read every value of a column with the format of its first)."""
    if not _ISO_TS.fullmatch(text):
        return None
    try:
        moment = datetime.fromisoformat(text)  # month 13, hour 25 and the like
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MICROSECOND


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
# ``_read_instant``, remembered: the rows of one line share its timestamp
instant_us = functools.lru_cache(maxsize=4096)(_read_instant)


def _is_instant(text: Any) -> bool:
    return instant_us(text) is not None


def _describe(value: object) -> str:
    kind = {dict: "an object", list: "a list", bool: "a boolean", str: "the string"}.get(
        type(value), f"the {type(value).__name__}"
    )
    shown = repr(value)
    return f"{kind} {shown[:40]}{'...' if len(shown) > 40 else ''}"


Row = TypeVar("Row", bound=Mapping[str, object])


@functools.cache
def _as_text(table: str) -> dict[str, pl.DataType]:
    """The Polars schema rows are built into: instants arrive as their ISO text, read into
    instants by ``Columns.frame``."""
    return polars_schema({name: Str if t == Ts else t for name, t in RAW_TABLES[table].items()})


class Columns(Generic[Row]):
    """Rows of one raw table, appended by a parser as dicts of the columns it knows (absent
    keys are null) and checked against the schema as they come (``check_row``), or, when
    ``checked`` is off, all at once when the frame is built."""

    __slots__ = ("table", "rows", "checked")

    def __init__(self, table: str) -> None:
        self.table = table
        self.rows: list[Row] = []
        self.checked = True

    def add(self, row: Row) -> None:
        """Append a row; ``BadValue`` (and no row) when a value does not fit its column."""
        if self.checked:
            check_row(self.table, row)
        self.rows.append(row)

    def __len__(self) -> int:
        return len(self.rows)

    def lists(self) -> dict[str, list[Any]]:
        """The rows column by column, every column of the table (an absent key is null), an
        instant as ``instant_us``'s integer: what ``frame`` holds, without Polars, for a
        batch small enough to bind as lists (``warehouse.insert_lists``). Only rows added
        checked: the check of unchecked rows is ``frame``'s."""
        if not self.checked:
            raise ValueError(f"{self.table}: rows added unchecked go through frame()")
        rows = self.rows
        out: dict[str, list[Any]] = {}
        for name, kind in RAW_TABLES[self.table].items():
            values = [row.get(name) for row in rows]
            if kind == Ts:
                values = [None if v is None else instant_us(v) for v in values]
            out[name] = values
        return out

    def frame(self, instants: dict[str, int | None] | None = None) -> pl.DataFrame:
        """The rows as a frame of the table's types. Rows added unchecked are checked here,
        all at once: ``BadValue`` (or ``UnknownColumn``) when a value does not fit, without
        saying which. ``instants`` (text -> ``instant_us``, for the texts not read
        column-wise) is read and filled: the frames of one batch share it, since a line's
        rows in several tables share its timestamp."""
        import polars as pl

        schema = _as_text(self.table)
        if self.checked:
            frame = pl.from_dicts(self.rows, schema=schema, strict=False)
        else:
            frame = _checked_frame(self.table, self.rows)
        known = {} if instants is None else instants
        stamps = []
        utc = pl.Datetime("us", "UTC")  # polars_type(Ts), typed for strptime
        for column in _STAMPS[self.table]:
            texts = frame.get_column(column)
            # the texts of the one shape both runtimes write (``...T09:00:00.123Z``, ASCII
            # digits, fields in range, a year from 1000 on) are read column-wise: there
            # ``fromisoformat`` and Polars agree, and a date that is no day (02-30) comes
            # out null; every other text is read by ``_read_instant``, each distinct text
            # once (``known``), and mapped to those integers in Polars
            fast = frame.select(
                pl.when(pl.col(column).str.contains(_MILLIS_Z))
                .then(pl.col(column).str.strptime(utc, _MILLIS_Z_FORMAT, strict=False))
                .alias(column)
            ).to_series()
            rest = texts.filter(fast.is_null() & texts.is_not_null()).unique()
            if rest.is_empty():
                stamps.append(fast)
                continue
            keys = rest.to_list()
            new = [text for text in keys if text not in known]
            known.update(zip(new, map(_read_instant, new), strict=True))
            micros = list(map(known.__getitem__, keys))
            # a text that is no instant fails an unchecked frame (rows added checked hold
            # none) and is null otherwise
            if not self.checked and None in micros:
                raise BadValue(f"{self.table}.{column}: a value is not a valid ts")
            slow = texts.replace_strict(rest, micros, default=None, return_dtype=pl.Int64)
            stamps.append(fast.fill_null(slow.cast(utc)))
        return frame.with_columns(stamps)


# an instant to the millisecond in UTC, as Claude Code and Codex write every timestamp: a
# strict pattern, so that what Polars reads of it is what ``_read_instant`` reads
_MILLIS_Z = (
    r"^[1-9][0-9]{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z$"
)
_MILLIS_Z_FORMAT = "%Y-%m-%dT%H:%M:%S%.3fZ"
_STAMPS = {
    table: [name for name, t in cols.items() if t == Ts] for table, cols in RAW_TABLES.items()
}
_NONE = type(None)
# the type of a value that may fit a column of each kind (an instant's text is looked at too)
_TAKES = {"str": str, "ts": str, "int": int, "bool": bool, "float": float}


def _checked_frame(table: str, rows: list[Any]) -> pl.DataFrame:
    """``check_row`` for every row at once, then their frame: the same verdict (a row fits
    when each of its values fits its column) from work done in C rather than per row.

    The distinct shapes of the rows (their keys and the types of their values, found in one
    pass of ``map``) say whether every value has a type its column takes; Polars, building
    the frame strictly, refuses an integer beyond 64 bits; the distinct texts of each
    timestamp column are looked at as ``check_row`` looks at one when ``Columns.frame``
    reads them (once, for both). Only an integer in a float column (never written by the
    parsers) has its rows looked at one by one."""
    import polars as pl

    kinds = _KINDS[table]
    types = map(tuple, map(map, itertools.repeat(type), map(dict.values, rows)))
    floats = set()
    for keys, shape in set(zip(map(tuple, rows), types, strict=True)):
        for column, kind in zip(keys, shape, strict=True):
            expected = kinds.get(column)
            if expected is None:
                raise UnknownColumn(f"{table} has no column {column!r}")
            if kind is _NONE or kind is _TAKES[expected]:
                continue
            if expected == "float" and kind is int:
                floats.add(column)
                continue
            raise BadValue(f"{table}.{column}: a {kind.__name__} is not a valid {expected}")
    for column in floats:
        if any(type(v) is int and abs(v) >= _FLOAT_EXACT for v in _values(rows, column)):
            raise BadValue(f"{table}.{column}: an integer is not a valid float")
    try:
        frame = pl.from_dicts(rows, schema=_as_text(table), strict=True)
    except Exception as exc:  # an integer beyond 64 bits: the types said everything else
        raise BadValue(f"{table}: {exc}") from exc
    return frame  # its instants are read, and checked, by ``Columns.frame``


def _values(rows: list[Any], column: str) -> list[object]:
    return [row.get(column) for row in rows]


class Batch:
    """All rows parsed in one run, table by table; a typed attribute per table the parsers
    write (``tables`` holds them all by name). Rows are checked as they are added unless
    ``checked`` is off: then they are checked all at once by ``Columns.frame`` (cheaper per
    row), and a loader that wants a bad line rejected by itself parses again checked
    (``load._parse_chunk``)."""

    __slots__ = (
        "files", "load_errors", "events", "tool_calls", "tool_results", "file_reads",
        "read_texts", "mentions", "subagent_meta", "tables", "_order", "_rows",
    )  # fmt: skip

    def __init__(self, checked: bool = True) -> None:
        self.files: Columns[FileRow] = Columns("raw_files")
        self.load_errors: Columns[LoadErrorRow] = Columns("raw_load_errors")
        self.events: Columns[EventRow] = Columns("raw_events")
        self.tool_calls: Columns[ToolCallRow] = Columns("raw_tool_calls")
        self.tool_results: Columns[ToolResultRow] = Columns("raw_tool_results")
        self.file_reads: Columns[FileReadRow] = Columns("raw_file_reads")
        self.read_texts: Columns[ReadTextRow] = Columns("raw_read_texts")
        self.mentions: Columns[MentionRow] = Columns("raw_mentions")
        self.subagent_meta: Columns[SubagentMetaRow] = Columns("raw_subagent_meta")
        self._order: tuple[Columns[Any], ...] = (
            self.files, self.load_errors, self.events, self.tool_calls, self.tool_results,
            self.file_reads, self.read_texts, self.mentions, self.subagent_meta,
        )  # fmt: skip
        self.tables: dict[str, Columns[Any]] = {cols.table: cols for cols in self._order}
        self._rows = tuple(cols.rows for cols in self._order)  # the lists never change
        self.checked = checked

    @property
    def checked(self) -> bool:
        """Whether each row is checked as it is added (else when its frame is built)."""
        return self.files.checked

    @checked.setter
    def checked(self, value: bool) -> None:
        for cols in self._order:
            cols.checked = value

    @contextlib.contextmanager
    def checking(self) -> Iterator[None]:
        """Check every row as it is added, for the length of the block."""
        was = self.checked
        self.checked = True
        try:
            yield
        finally:
            self.checked = was

    def mark(self) -> list[int]:
        """Where each table stands now, for ``rollback``."""
        return list(map(len, self._rows))

    def rollback(self, mark: list[int]) -> None:
        """Drop every row added since ``mark``: a rejected line leaves no part of itself."""
        for rows, size in zip(self._rows, mark, strict=True):
            del rows[size:]


# bases are re-read whole each time they change; one raw table per BaseSnapshot attribute
BASE_TABLES: dict[str, dict[str, DType]] = {
    "raw_bases": {
        "base_path": Str,
        "project_dir": Str,
        "repo_root": Str,
        "is_git": Bool,
        "head_commit": Str,
        "fingerprint": Str,
    },
    "raw_lessons": {
        "base_path": Str,
        "lesson_id": Str,
        "file_path": Str,
        "status": Str,
        "addressee": StrList,
        "triggers": StrList,
        "scope": Str,
        "target": Str,
        "lesson_class": Str,
        "created": Date,
        "ritual": Str,
        "evidence_hits": Int,
        "evidence_helped": Bool,
        "rule": Str,
        "body_bytes": Int,
        "journal_bytes": Int,
        "journal_lines": Int,
        "first_commit_at": Ts,
        "last_commit_at": Ts,
        "front_matter_ok": Bool,
    },
    "raw_hits": {
        "base_path": Str,
        "lesson_id": Str,
        "file_path": Str,
        "line_no": Int,
        "hit_date": Date,
        "where_": Str,
        "what": Str,
        "caught": Str,
        "recalled": Str,
        "defect": Str,
        "session_id": Str,
        "commit": Str,
        "ts": Ts,
        "extra": Str,
        "is_hit": Bool,
        "parse_ok": Bool,
        "raw": Str,
    },
    "raw_lesson_versions": {
        "base_path": Str,
        "lesson_id": Str,
        "file_path": Str,
        "commit": Str,
        "committed_at": Ts,
        "body_bytes": Int,
        "journal_bytes": Int,
        "hits": Int,
        # the front matter of that version: the effect of a lesson dates from the commit
        # where its status turned active, so every version's status is kept;
        # version_seq orders one lesson's versions (0 = first), ties of time included
        "version_seq": Int,
        "status": Str,
        "lesson_class": Str,
    },
    # commits of the repository that changed a hook or scout prompt file, or deleted a
    # lesson file: the interventions that are not visible in the versions above
    "raw_repo_changes": {
        "base_path": Str,
        "commit": Str,
        "committed_at": Ts,
        "path": Str,
        "change": Str,
        "kind": Str,
    },
    "raw_index_versions": {
        "base_path": Str,
        "version_id": Str,
        "committed_at": Ts,
        "text": Str,
        "bytes": Int,
        "n_lines": Int,
        "active_heading_line": Int,
        "candidates_heading_line": Int,
        "first_heading_line": Int,
        "marker_count": Int,
    },
    "raw_index_rows": {
        "base_path": Str,
        "version_id": Str,
        "section": Str,
        "line_no": Int,
        "lesson_id": Str,
        "addressee": Str,
        "triggers": Str,
        "target": Str,
        "line_text": Str,
    },
    "raw_index_sections": {
        "base_path": Str,
        "version_id": Str,
        "section": Str,
        "heading_line": Int,
        "first_line": Int,
        "last_line": Int,
    },
    # INDEX.md as it was on disk when the base was read: the index-layout rules' input
    "raw_index_current": {
        "base_path": Str,
        "file_path": Str,
        "text": Str,
    },
    "raw_quarantine": {
        "base_path": Str,
        "line_no": Int,
        "obs_date": Date,
        "signal": Str,
        "session_id": Str,
        "mechanism": Str,
        "seen": Int,
        "raw": Str,
    },
    "raw_retired": {
        "base_path": Str,
        "line_no": Int,
        "lesson_id": Str,
        "retired_date": Date,
        "reason": Str,
        "where_": Str,
        "raw": Str,
    },
    "raw_base_errors": {
        "base_path": Str,
        "file": Str,
        "line": Int,
        "reason": Str,
    },
    # which bases stand on the path from each working directory seen in a transcript
    "raw_cwd_bases": {
        "cwd": Str,
        "base_path": Str,
        "depth": Int,
    },
}


def base_frame(table: str, rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Rows of dicts (python values, datetimes allowed) as a frame of the declared types."""
    import polars as pl

    schema = polars_schema(BASE_TABLES[table])
    data = {name: [row.get(name) for row in rows] for name in schema}
    return pl.DataFrame(data, schema=schema, strict=False)


def empty_base_frame(table: str) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(schema=polars_schema(BASE_TABLES[table]))


# ---------------------------------------------------------------- tables the package keeps
# Not raw: written after the build and kept across rebuilds (the marts are rebuilt from the
# raw tables, these are not). Created from the same map with ``create_sql``.

# the nightly run's sleep signs: one row per (as_of day, base, sign); a re-run of a day
# replaces that day's rows for the base (nightly.store_signs)
SIGN_HISTORY: dict[str, DType] = {
    "as_of": Date,
    "base_path": Str,
    "name": Str,
    "value_json": Str,
    "threshold_json": Str,
    "fired": Bool,
    "lessons": StrList,
    "sleep_due": Bool,
    "recorded_at": Ts,
}

STORED_TABLES: dict[str, dict[str, DType]] = {"fct_sign_history": SIGN_HISTORY}

# ---------------------------------------------------------------- the build's own bookkeeping
# Written by refresh.py (and the import of exports); never exported, never read by a query.
META_TABLES: dict[str, dict[str, DType]] = {
    # the fingerprint of the sql/ models the layers were last built from: one row at most
    "meta_build": {"models": Str, "built_at": Ts},
    # the export folders a central warehouse was loaded from (exchange.import_parquet)
    "meta_imports": {"folder": Str},
}
