"""The warehouse as an OCEL 2.0 object-centric event log, for process-mining tools.

    log = build_ocel(con, Filters())
    summary = write_ocel(log, Path("lessons.json"))      # or lessons.sqlite

Objects (id prefix: type):
  session     session:<id>        runtime, cwd, started_at, ended_at, active_seconds
  agent run   run:<agent_run_id>  agent_key, agent_id, agent_type, is_main
  lesson      lesson:<base>#<id>  lesson_id, base; status and class as the file stands now
              (from its last commit on); each committed revision as time-stamped commit,
              body_bytes and hits values
  file        file:<path>         every file a call read or named
  command     command:<digest>    a shell command text (redacted; the id is the first 16
              hex digits of sha256 of the redacted text, so equal commands are one object)
  hit         hit:<journal>:<line> a hit journal line: defect, caught_by, recall, ...
Events: every tool call is one event. A call that read a lesson body or an INDEX.md is a
``read``, or ``read-partially`` when any of those reads was partial (queries/
export_lesson_reads.sql says when); every other call is a ``tool-call``. Each hit gives a
``miss`` and, when the journal names who caught it, a ``caught`` at the same time: the
journal line records one moment (its ts, else the end of its session, else its date).
Qualifiers: event-object ``in session``, ``by run``, ``body read``, ``index row seen``,
``reads``, ``target``, ``runs`` (command), ``spawns`` (run), ``records``/``caught`` (hit),
``missed`` (lesson), ``during`` (session); object-object ``part of`` (run -> session),
``spawned by`` (run -> run), ``of lesson`` and ``in session`` (hit), ``stored in``
(lesson -> file).
Static attribute values carry the time 1970-01-01T00:00:00Z, the standard's convention for
a value with no known start. Tool calls without a time and hits without any date cannot be
events; they are counted in the summary. Command texts and hit descriptions pass through
``redact``; tool arguments and results are not exported.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TypeVar

from lessons_analytics.documents import OcelExportSummary
from lessons_analytics.engine import duckdb
from lessons_analytics.export_rows import (
    AgentRunRow,
    FileReadRow,
    HitRow,
    IndexRowSeenRow,
    LessonReadRow,
    LessonRow,
    LessonVersionRow,
    SessionRow,
    ToolCallRow,
    rows,
)
from lessons_analytics.metrics import Filters, query
from lessons_analytics.redact import redact

__all__ = ["EPOCH", "EVENT_TYPES", "OBJECT_TYPES", "OcelEvent", "OcelLog", "OcelObject",
           "OcelSummary", "build_ocel", "write_ocel"]  # fmt: skip

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_READ = {"tool": "string", "kind": "string", "lines_seen": "integer", "duration_s": "float"}
EVENT_TYPES: dict[str, dict[str, str]] = {
    "read": _READ,
    "read-partially": {**_READ, "partial_reason": "string"},
    "tool-call": {
        **{k: v for k, v in _READ.items() if k in ("tool", "duration_s")},
        "failed": "boolean",
        "exit_code": "integer",
    },  # fmt: skip
    "miss": {
        "defect": "string",
        "recall": "string",
        "recorded_recalled": "string",
        "disagrees": "boolean",
    },  # fmt: skip
    "caught": {"caught_by": "string"},
}
OBJECT_TYPES: dict[str, dict[str, str]] = {
    "session": {
        "runtime": "string",
        "cwd": "string",
        "started_at": "time",
        "ended_at": "time",
        "active_seconds": "float",
    },  # fmt: skip
    "agent run": {
        "agent_key": "string",
        "agent_id": "string",
        "agent_type": "string",
        "is_main": "boolean",
    },  # fmt: skip
    "lesson": {
        "lesson_id": "string",
        "base": "string",
        "status": "string",
        "class": "string",
        "commit": "string",
        "body_bytes": "integer",
        "hits": "integer",
    },  # fmt: skip
    "file": {"path": "string"},
    "command": {"text": "string"},
    "hit": {
        "journal": "string",
        "lesson_id": "string",
        "hit_date": "time",
        "defect": "string",
        "caught_by": "string",
        "recall": "string",
        "recorded_recalled": "string",
        "disagrees": "boolean",
        "what": "string",
    },  # fmt: skip
}


# an attribute value as the log holds it; the declared OCEL type (EVENT_TYPES,
# OBJECT_TYPES) says how it is written, and None values are left out
OcelValue = str | int | float | bool | datetime


@dataclass
class OcelObject:
    id: str
    type: str
    attributes: list[tuple[str, OcelValue, datetime]] = field(default_factory=list)
    relationships: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class OcelEvent:
    id: str
    type: str
    time: datetime
    attributes: dict[str, OcelValue] = field(default_factory=dict)
    relationships: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class OcelLog:
    """Events in time order and objects in first-seen order; ``skipped`` counts what had
    no time to be an event."""

    events: list[OcelEvent] = field(default_factory=list)
    objects: dict[str, OcelObject] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def add_object(self, oid: str, otype: str, **static: OcelValue | None) -> OcelObject:
        if oid not in self.objects:
            obj = OcelObject(oid, otype)
            obj.attributes = [(k, v, EPOCH) for k, v in static.items() if v is not None]
            self.objects[oid] = obj
        return self.objects[oid]

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def counts(self) -> dict[str, dict[str, int]]:
        events: dict[str, int] = defaultdict(int)
        objects: dict[str, int] = defaultdict(int)
        for event in self.events:
            events[event.type] += 1
        for obj in self.objects.values():
            objects[obj.type] += 1
        return {"events": dict(sorted(events.items())), "objects": dict(sorted(objects.items()))}


@dataclass
class OcelSummary:
    path: Path
    layout: str
    events: int
    objects: int
    event_object: int
    object_object: int
    by_type: dict[str, dict[str, int]]
    skipped: dict[str, int]

    def document(self) -> OcelExportSummary:
        return {
            "path": str(self.path),
            "layout": self.layout,
            "events": self.events,
            "objects": self.objects,
            "event_object_relationships": self.event_object,
            "object_object_relationships": self.object_object,
            "event_types": self.by_type["events"],
            "object_types": self.by_type["objects"],
            "skipped": self.skipped,
        }


def write_ocel(log: OcelLog, path: Path) -> OcelSummary:
    """Write ``log`` as OCEL 2.0 JSON (``.json``/``.jsonocel``) or SQLite (``.sqlite``/
    ``.sqlite3``/``.db``), replacing the file."""
    from lessons_analytics.export_ocel_write import write_json, write_sqlite

    suffix = path.suffix.lower()
    if suffix in (".json", ".jsonocel"):
        layout = "json"
        write_json(log, path)
    elif suffix in (".sqlite", ".sqlite3", ".db"):
        layout = "sqlite"
        write_sqlite(log, path)
    else:
        raise ValueError(f"{path}: an OCEL file ends in .json, .jsonocel, .sqlite or .sqlite3")
    return OcelSummary(
        path,
        layout,
        len(log.events),
        len(log.objects),
        sum(len(e.relationships) for e in log.events),
        sum(len(o.relationships) for o in log.objects.values()),
        log.counts(),
        dict(log.skipped),
    )


def build_ocel(con: duckdb.DuckDBPyConnection, filters: Filters) -> OcelLog:
    """The OCEL log of the sessions, lessons and hits ``filters`` select."""
    log = OcelLog()
    params = filters.params()
    sessions = rows(query(con, "export_sessions", **params), SessionRow)
    ids = [s["session_id"] for s in sessions]
    for session in sessions:
        _session(log, session)
    _lessons(log, rows(query(con, "export_lessons", bases=params["bases"]), LessonRow),
             rows(query(con, "report_lesson_versions", bases=params["bases"]),
                  LessonVersionRow))  # fmt: skip
    runs = rows(query(con, "export_agent_runs", sessions=ids), AgentRunRow)
    calls = rows(query(con, "export_tool_calls", sessions=ids), ToolCallRow)
    call_runs = {(c["session_id"], c["tool_use_id"]): c["agent_run_id"] for c in calls}
    for run in runs:
        _run(log, run, call_runs)
    _calls(log, con, ids, calls, runs)
    for hit in rows(query(con, "hits_list", **params), HitRow):
        _hit(log, hit)
    log.events.sort(key=lambda e: (e.time, e.id))
    return log


def _session(log: OcelLog, row: SessionRow) -> None:
    log.add_object(
        f"session:{row['session_id']}", "session", runtime=row["runtime"], cwd=row["cwd"],
        started_at=row["started_at"], ended_at=row["ended_at"],
        active_seconds=float(row["active_seconds"] or 0.0),
    )  # fmt: skip


def _run(log: OcelLog, row: AgentRunRow, call_runs: dict[tuple[str, str], str]) -> None:
    obj = log.add_object(
        f"run:{row['agent_run_id']}", "agent run", agent_key=row["agent_key"],
        agent_id=row["agent_id"], agent_type=row["agent_type"], is_main=bool(row["is_main"]),
    )  # fmt: skip
    obj.relationships.append((f"session:{row['session_id']}", "part of"))
    spawner = call_runs.get((row["session_id"], row["spawned_by_tool_use_id"] or ""))
    if spawner is not None and spawner != row["agent_run_id"]:
        obj.relationships.append((f"run:{spawner}", "spawned by"))


def lesson_oid(base: str, lesson_id: str) -> str:
    return f"lesson:{base}#{lesson_id}"


def _lesson(log: OcelLog, base: str, lesson_id: str) -> OcelObject:
    return log.add_object(lesson_oid(base, lesson_id), "lesson", lesson_id=lesson_id, base=base)


def _file(log: OcelLog, path: str) -> str:
    oid = f"file:{path}"
    log.add_object(oid, "file", path=path)
    return oid


def _lessons(log: OcelLog, lessons: list[LessonRow], versions: list[LessonVersionRow]) -> None:
    for row in lessons:
        obj = _lesson(log, row["base_path"], row["lesson_id"])
        since = row["last_commit_at"] or EPOCH
        for name, value in (("status", row["status"]), ("class", row["lesson_class"])):
            if value is not None:
                obj.attributes.append((name, value, since))
        if row["file_path"]:
            obj.relationships.append((_file(log, row["file_path"]), "stored in"))
    for version in versions:
        oid = lesson_oid(version["base_path"], version["lesson_id"])
        when = version["committed_at"]
        if oid not in log.objects or when is None:
            continue
        values: tuple[tuple[str, OcelValue | None], ...] = (
            ("commit", version["commit"]),
            ("body_bytes", version["body_bytes"]),
            ("hits", version["hits"]),
        )
        # a null body size or hit count is kept out, as every absent value is
        log.objects[oid].attributes += [(k, v, when) for k, v in values if v is not None]


def _calls(
    log: OcelLog,
    con: duckdb.DuckDBPyConnection,
    ids: list[str],
    calls: list[ToolCallRow],
    runs: list[AgentRunRow],
) -> None:
    reads = _grouped(rows(query(con, "export_lesson_reads", sessions=ids), LessonReadRow))
    files = _grouped(rows(query(con, "export_file_reads", sessions=ids), FileReadRow))
    rows_seen = _grouped(rows(query(con, "export_index_rows_seen", sessions=ids), IndexRowSeenRow))
    spawned: dict[tuple[str, str], list[AgentRunRow]] = defaultdict(list)
    for run in runs:
        if run["spawned_by_tool_use_id"] and not run["is_main"]:
            spawned[(run["session_id"], run["spawned_by_tool_use_id"])].append(run)
    for call in calls:
        key = (call["session_id"], call["tool_use_id"])
        if call["called_at"] is None:
            log.skip("tool_calls_without_time")
            continue
        event = _call_event(call, call["called_at"], reads.get(key, []))
        rel = event.relationships
        rel.append((f"session:{call['session_id']}", "in session"))
        rel.append((f"run:{call['agent_run_id']}", "by run"))
        for read in reads.get(key, []):
            if read["kind"] == "body" and read["lesson_id"] is not None:
                rel.append((_lesson(log, read["base_path"], read["lesson_id"]).id, "body read"))
        for row in rows_seen.get(key, []):
            rel.append((_lesson(log, row["base_path"], row["lesson_id"]).id, "index row seen"))
        read_paths = {r["path"] for r in files.get(key, []) if r["path"]}
        rel += [(_file(log, p), "reads") for p in sorted(read_paths)]
        if call["file_path"] and call["file_path"] not in read_paths:
            rel.append((_file(log, call["file_path"]), "target"))
        if call["command"]:
            rel.append((_command(log, call["command"]), "runs"))
        rel += [(f"run:{r['agent_run_id']}", "spawns") for r in spawned.get(key, [])]
        event.relationships = list(dict.fromkeys(rel))
        log.events.append(event)


_OfCall = TypeVar("_OfCall", LessonReadRow, FileReadRow, IndexRowSeenRow)


def _grouped(found: list[_OfCall]) -> dict[tuple[str, str], list[_OfCall]]:
    out: dict[tuple[str, str], list[_OfCall]] = defaultdict(list)
    for row in found:
        out[(row["session_id"], row["tool_use_id"])].append(row)
    return out


def _call_event(call: ToolCallRow, when: datetime, reads: list[LessonReadRow]) -> OcelEvent:
    eid = f"call:{call['session_id']}:{call['tool_use_id']}"
    attributes: dict[str, OcelValue | None] = {
        "tool": call["tool_name"],
        "duration_s": call["duration_s"],
    }
    if not reads:
        failed = bool(call["is_error"] or call["is_interrupt"] or call["is_rejected"])
        attributes |= {"failed": failed, "exit_code": call["exit_code"]}
        return OcelEvent(eid, "tool-call", when, _present(attributes))
    kinds = sorted({r["kind"] for r in reads})
    seen = [r["lines_seen"] for r in reads if r["lines_seen"] is not None]
    attributes |= {"kind": "+".join(kinds), "lines_seen": sum(seen) if seen else None}
    reasons = [r["partial_reason"] for r in reads if r["is_partial"]]
    if not reasons:
        return OcelEvent(eid, "read", when, _present(attributes))
    attributes["partial_reason"] = reasons[0]
    return OcelEvent(eid, "read-partially", when, _present(attributes))


def _present(attributes: Mapping[str, OcelValue | None]) -> dict[str, OcelValue]:
    return {k: v for k, v in attributes.items() if v is not None}


def _command(log: OcelLog, text: str) -> str:
    clean = redact(text)
    oid = "command:" + hashlib.sha256(clean.encode()).hexdigest()[:16]
    log.add_object(oid, "command", text=clean)
    return oid


def _hit(log: OcelLog, row: HitRow) -> None:
    journal = f"{row['file_path']}:{row['line_no']}"
    when = row["missed_at"] or _midnight(row["hit_date"])
    if when is None:
        log.skip("hits_without_time")
        return
    lesson = _lesson(log, row["base_path"], row["lesson_id"]).id
    hit = log.add_object(
        f"hit:{journal}", "hit", journal=journal, lesson_id=row["lesson_id"],
        hit_date=_midnight(row["hit_date"]), defect=row["defect"], caught_by=row["caught_by"],
        recall=row["recall"], recorded_recalled=row["recorded_recalled"],
        disagrees=bool(row["disagrees"]), what=redact(row["what"]) if row["what"] else None,
    )  # fmt: skip
    hit.relationships.append((lesson, "of lesson"))
    session = f"session:{row['session_id']}" if row["session_id"] else None
    miss_rel = [(hit.id, "records"), (lesson, "missed")]
    if session is not None and session in log.objects:
        hit.relationships.append((session, "in session"))
        miss_rel.append((session, "during"))
    attributes = _present({"defect": row["defect"], "recall": row["recall"],
                           "recorded_recalled": row["recorded_recalled"],
                           "disagrees": bool(row["disagrees"])})  # fmt: skip
    log.events.append(OcelEvent(f"miss:{journal}", "miss", when, attributes, miss_rel))
    if row["caught_by"] and row["caught_by"] != "unknown":
        log.events.append(OcelEvent(f"caught:{journal}", "caught", when,
                                    {"caught_by": row["caught_by"]},
                                    [(hit.id, "caught"), (lesson, "missed")]))  # fmt: skip


def _midnight(day: date | None) -> datetime | None:
    if day is None:
        return None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)
