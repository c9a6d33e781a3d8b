"""Write an ``OcelLog`` in the two OCEL 2.0 layouts: JSON and SQLite.

JSON (ocel-standard.org/specification/formats/json): the four arrays eventTypes,
objectTypes, events, objects. Every attribute value is written as a string, because the
standard's JSON schema (ocel20-schema-json.json) types ``value`` as a string even though
the format page's example shows a number; the declared attribute type (string, time,
integer, float, boolean) says how to read it back. Times are ISO 8601 in UTC with a ``Z``.

SQLite (ocel-standard.org/specification/formats/sqlite): tables event, object,
event_object, object_object, event_map_type, object_map_type, one ``event_<Type>`` table
per event type (ocel_id, ocel_time, attributes) and one ``object_<Type>`` table per object
type (ocel_id, ocel_time, ocel_changed_field, attributes). An object's first row holds the
values of its earliest time with ocel_changed_field null; each later value is a row of its
own naming the changed field. <Type> is the type name in CamelCase without spaces or
dashes ("read-partially" -> ReadPartially). Times are 'YYYY-MM-DD HH:MM:SS[.ffffff]' UTC;
booleans 0/1.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

import orjson

from lessons_analytics.export_ocel import EVENT_TYPES, OBJECT_TYPES, OcelLog, OcelObject, OcelValue
from lessons_analytics.sqlfiles import quote_identifier  # SQLite quotes names as DuckDB does

_SQL_TYPES = {"string": "TEXT", "time": "TIMESTAMP", "integer": "INTEGER", "float": "REAL",
              "boolean": "BOOLEAN"}  # fmt: skip


class _Attribute(TypedDict):
    name: str
    type: str


class _Type(TypedDict):
    name: str
    attributes: list[_Attribute]


# a value of a SQLite row: the converted attribute values, ids and times as text
_SqlValue = str | int | float | None


def write_json(log: OcelLog, path: Path) -> None:
    document = {
        "eventTypes": _types(EVENT_TYPES),
        "objectTypes": _types(OBJECT_TYPES),
        "events": [
            {
                "id": e.id,
                "type": e.type,
                "time": iso(e.time),
                "attributes": [
                    {"name": k, "value": json_value(v, EVENT_TYPES[e.type][k])}
                    for k, v in e.attributes.items()
                ],
                "relationships": [{"objectId": o, "qualifier": q} for o, q in e.relationships],
            }
            for e in log.events
        ],
        "objects": [_json_object(o) for o in log.objects.values()],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")


def _types(types: dict[str, dict[str, str]]) -> list[_Type]:
    return [
        {"name": name, "attributes": [{"name": k, "type": t} for k, t in attrs.items()]}
        for name, attrs in types.items()
    ]


def _json_object(obj: OcelObject) -> dict[str, object]:
    declared = OBJECT_TYPES[obj.type]
    return {
        "id": obj.id,
        "type": obj.type,
        "attributes": [
            {"name": k, "value": json_value(v, declared[k]), "time": iso(when)}
            for k, v, when in obj.attributes
        ],
        "relationships": [{"objectId": o, "qualifier": q} for o, q in obj.relationships],
    }


def json_value(value: OcelValue, declared: str) -> str:
    """The string the JSON layout holds for ``value`` of the ``declared`` OCEL type."""
    if declared == "boolean":
        return "true" if value else "false"
    if declared == "time":
        return iso(_time(value))
    if declared == "float":
        return repr(float(_number(value)))
    if declared == "integer":
        return str(int(_number(value)))
    return str(value)


def _time(value: OcelValue) -> datetime:
    if not isinstance(value, datetime):
        raise TypeError(f"an OCEL time attribute holds {value!r}")
    return value


def _number(value: OcelValue) -> int | float:
    # bool is an int: the log holds no boolean under a numeric type, but it would convert
    if isinstance(value, datetime | str):
        raise TypeError(f"an OCEL number attribute holds {value!r}")
    return value


def iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def sql_time(value: datetime) -> str:
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ")


def type_map(name: str) -> str:
    """The table suffix of a type name: CamelCase, letters and digits only."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name))


def write_sqlite(log: OcelLog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    try:
        with con:
            _create(con)
            _fill(con, log)
    finally:
        con.close()


def _create(con: sqlite3.Connection) -> None:
    con.execute('create table "event" ("ocel_id" TEXT primary key, "ocel_type" TEXT)')
    con.execute('create table "object" ("ocel_id" TEXT primary key, "ocel_type" TEXT)')
    con.execute('create table "event_object" ("ocel_event_id" TEXT, "ocel_object_id" TEXT,'
                ' "ocel_qualifier" TEXT)')  # fmt: skip
    con.execute('create table "object_object" ("ocel_source_id" TEXT, "ocel_target_id" TEXT,'
                ' "ocel_qualifier" TEXT)')  # fmt: skip
    for kind, types in (("event", EVENT_TYPES), ("object", OBJECT_TYPES)):
        map_table = quote_identifier(f"{kind}_map_type")
        con.execute(f'create table {map_table} ("ocel_type" TEXT, "ocel_type_map" TEXT)')
        for name, attrs in types.items():
            con.execute(f"insert into {map_table} values (?, ?)", (name, type_map(name)))
            fixed = ['"ocel_id" TEXT', '"ocel_time" TIMESTAMP']
            if kind == "object":
                fixed.append('"ocel_changed_field" TEXT')
            cols = fixed + [f"{quote_identifier(k)} {_SQL_TYPES[t]}" for k, t in attrs.items()]
            table = quote_identifier(f"{kind}_{type_map(name)}")
            con.execute(f"create table {table} ({', '.join(cols)})")


def _fill(con: sqlite3.Connection, log: OcelLog) -> None:
    con.executemany('insert into "event" values (?, ?)', [(e.id, e.type) for e in log.events])
    con.executemany(
        'insert into "event_object" values (?, ?, ?)',
        [(e.id, o, q) for e in log.events for o, q in e.relationships],
    )
    for name, attrs in EVENT_TYPES.items():
        rows = [
            (e.id, sql_time(e.time), *(_sql_value(e.attributes.get(k), attrs[k]) for k in attrs))
            for e in log.events
            if e.type == name
        ]
        _insert(con, f"event_{type_map(name)}", 2 + len(attrs), rows)
    objects = list(log.objects.values())
    con.executemany('insert into "object" values (?, ?)', [(o.id, o.type) for o in objects])
    con.executemany(
        'insert into "object_object" values (?, ?, ?)',
        [(o.id, target, q) for o in objects for target, q in o.relationships],
    )
    by_type: dict[str, list[tuple[_SqlValue, ...]]] = defaultdict(list)
    for obj in objects:
        by_type[obj.type].extend(_object_rows(obj))
    for name, attrs in OBJECT_TYPES.items():
        _insert(con, f"object_{type_map(name)}", 3 + len(attrs), by_type[name])


def _object_rows(obj: OcelObject) -> list[tuple[_SqlValue, ...]]:
    """The initial row (values of the earliest time) and one row per later value."""
    declared = OBJECT_TYPES[obj.type]
    names = list(declared)
    if not obj.attributes:
        return [(obj.id, sql_time(datetime(1970, 1, 1, tzinfo=UTC)), None, *[None] * len(names))]
    first = min(when for _, _, when in obj.attributes)
    initial: list[_SqlValue] = [None] * len(names)
    later = []
    for name, value, when in sorted(obj.attributes, key=lambda a: a[2]):
        if when == first and initial[names.index(name)] is None:
            initial[names.index(name)] = _sql_value(value, declared[name])
            continue
        row: list[_SqlValue] = [None] * len(names)
        row[names.index(name)] = _sql_value(value, declared[name])
        later.append((obj.id, sql_time(when), name, *row))
    return [(obj.id, sql_time(first), None, *initial), *later]


def _sql_value(value: OcelValue | None, declared: str) -> _SqlValue:
    if value is None:
        return None
    if declared == "boolean":
        return 1 if value else 0
    if declared == "time":
        return sql_time(_time(value))
    if declared == "float":
        return float(_number(value))
    if declared == "integer":
        return int(_number(value))
    return str(value)


def _insert(
    con: sqlite3.Connection, table: str, width: int, rows: list[tuple[_SqlValue, ...]]
) -> None:
    marks = ", ".join("?" * width)
    con.executemany(f"insert into {quote_identifier(table)} values ({marks})", rows)
