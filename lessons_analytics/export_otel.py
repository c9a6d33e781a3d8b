"""The warehouse as OpenTelemetry traces: OTLP/JSON following the GenAI semantic conventions.

    summary = write_otel(con, Path("traces.json"), Filters(), include_content=False)
    summary.spans, summary.events

Conventions pinned: OpenTelemetry semantic conventions v1.41.0 (git e018fe6f, the last
release holding the GenAI registry before it moved to its own repository; every gen_ai
name there is "Development"), schema URL ``SCHEMA_URL``. The one name that release lacks,
``gen_ai.memory.record.id``, comes from the GenAI conventions' memory attributes (same
meaning: the id of the memory record touched). The names are written here, not imported:
the Python semconv package marks its gen_ai names deprecated.

Mapping (one trace per session):
  session        -> ``invoke_agent {runtime}`` span (INTERNAL) with gen_ai.conversation.id;
                    the main run's tool calls are its children.
  subagent run   -> child ``invoke_agent {agent type}`` span with gen_ai.agent.id, under
                    the call that spawned it when that call is exported, else the session.
  tool call      -> ``execute_tool {tool}`` span: gen_ai.tool.call.id, start = call time,
                    end = start + the recorded duration (else the result time; no result:
                    a zero-length span with lessons.tool.has_result = false), error.type
                    and status ERROR when it failed (``ERROR_TYPES``).
  lesson read    -> on the call's span: gen_ai.data_source.id = base, gen_ai.memory.record.id
                    = lesson id (body reads), lessons.read.* (kind, lines_seen, truncated,
                    Active rows for an index). A call reading several lesson files carries
                    the first on the span and each further one as a ``lessons.read`` event.
  hit            -> ``gen_ai.evaluation.result`` event on its session's span at the miss
                    time: gen_ai.evaluation.name = "lesson_recall", score.label = recall.
                    Hits whose session is not exported have no span and are counted.
Tool arguments and results are opt-in (``include_content``) and pass through ``redact``;
a result is recorded only for a call that succeeded, as the convention says, and is the
head of the result the warehouse keeps (``results.py``), not the whole text.

Ids are derived from the session, run and call ids (the rule: ``otlp.py``).

The file holds one ``ExportTraceServiceRequest`` on one line: a JSON document, and a
one-line OTLP JSON Lines file as the Collector's file exporter and otlpjsonfile receiver
use. Encoding per the OTLP specification: hex ids, enums as integers, 64-bit integers
(nanosecond times, int attributes) as decimal strings, lowerCamelCase keys.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import orjson

from lessons_analytics import __version__
from lessons_analytics.documents import OtelExportSummary
from lessons_analytics.engine import duckdb
from lessons_analytics.export_rows import (
    AgentRunRow,
    HitRow,
    LessonReadRow,
    SessionRow,
    ToolCallRow,
    rows,
)
from lessons_analytics.metrics import Filters, query
from lessons_analytics.otlp import (
    STATUS_ERROR,
    Attributes,
    Event,
    ResourceSpans,
    Span,
    TraceRequest,
    event,
    key_values,
    ns,
    span,
    span_id,
    trace_id,
)
from lessons_analytics.redact import redact

__all__ = ["ERROR_TYPES", "SCHEMA_URL", "SEMCONV_VERSION", "OtelSummary", "otel_document",
           "write_otel"]  # fmt: skip

SEMCONV_VERSION = "1.41.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
# error.type values this exporter reports (the convention asks instrumentations to list them)
ERROR_TYPES = {
    "rejected": "the user refused the call",
    "interrupted": "the user interrupted the call",
    "nonzero_exit": "a shell call that exited with a non-zero status",
    "tool_error": "any other error result",
}
_PROVIDERS = {"claude": "anthropic", "codex": "openai"}
_SERVICES = {"claude": "claude-code", "codex": "codex"}


@dataclass
class OtelSummary:
    """What an export wrote and what it had to leave out (with the reason in the name)."""

    path: Path | None = None
    traces: int = 0
    session_spans: int = 0
    agent_spans: int = 0
    tool_spans: int = 0
    evaluation_events: int = 0
    read_events: int = 0
    sessions_without_time: int = 0
    runs_without_time: int = 0
    calls_without_time: int = 0
    hits_without_span: int = 0
    labels: dict[str, int] = field(default_factory=dict)

    @property
    def spans(self) -> int:
        return self.session_spans + self.agent_spans + self.tool_spans

    @property
    def events(self) -> int:
        return self.evaluation_events + self.read_events

    def document(self) -> OtelExportSummary:
        return {
            "path": str(self.path) if self.path else None,
            "semconv": SEMCONV_VERSION,
            "traces": self.traces,
            "spans": self.spans,
            "session_spans": self.session_spans,
            "agent_spans": self.agent_spans,
            "tool_spans": self.tool_spans,
            "events": self.events,
            "evaluation_events": self.evaluation_events,
            "read_events": self.read_events,
            "recall_labels": dict(sorted(self.labels.items())),
            "skipped": {
                k: v
                for k, v in (
                    ("sessions_without_time", self.sessions_without_time),
                    ("runs_without_time", self.runs_without_time),
                    ("tool_calls_without_time", self.calls_without_time),
                    ("hits_without_span", self.hits_without_span),
                )
                if v
            },
        }


def write_otel(
    con: duckdb.DuckDBPyConnection, path: Path, filters: Filters, *, include_content: bool = False
) -> OtelSummary:
    """Write the sessions ``filters`` select to ``path`` as OTLP/JSON traces."""
    document, summary = otel_document(con, filters, include_content=include_content)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(document) + b"\n")
    summary.path = path
    return summary


def otel_document(
    con: duckdb.DuckDBPyConnection, filters: Filters, *, include_content: bool = False
) -> tuple[TraceRequest, OtelSummary]:
    """The ``ExportTraceServiceRequest`` (as a JSON-ready dict) and its summary."""
    summary = OtelSummary()
    sessions = rows(query(con, "export_sessions", **filters.params()), SessionRow)
    ids = [s["session_id"] for s in sessions]
    hits = rows(query(con, "hits_list", bases=filters.params()["bases"]), HitRow)
    found = _Rows(
        runs=_by_session(rows(query(con, "export_agent_runs", sessions=ids), AgentRunRow)),
        calls=_by_session(rows(query(con, "export_tool_calls", sessions=ids), ToolCallRow)),
        reads=_by_call(rows(query(con, "export_lesson_reads", sessions=ids), LessonReadRow)),
        hits=_hits_by_session(hits),
    )
    by_runtime: dict[str, list[Span]] = defaultdict(list)
    for session in sessions:
        spans = _session_spans(session, found, include_content, summary)
        if spans:
            summary.traces += 1
            by_runtime[session["runtime"] or "unknown"].extend(spans)
    exported = {s["session_id"] for s in sessions if s["started_at"] is not None}
    summary.hits_without_span = sum(
        len(of_session) for sid, of_session in found.hits.items() if sid not in exported
    )
    return {"resourceSpans": [_resource(rt, by_runtime[rt]) for rt in sorted(by_runtime)]}, summary


@dataclass
class _Rows:
    runs: dict[str, list[AgentRunRow]]
    calls: dict[str, list[ToolCallRow]]
    reads: dict[tuple[str, str], list[LessonReadRow]]
    hits: dict[str | None, list[HitRow]]  # None: hits that name no session


_OfSession = TypeVar("_OfSession", AgentRunRow, ToolCallRow)


def _by_session(found: list[_OfSession]) -> dict[str, list[_OfSession]]:
    out: dict[str, list[_OfSession]] = defaultdict(list)
    for row in found:
        out[row["session_id"]].append(row)
    return out


def _hits_by_session(hits: list[HitRow]) -> dict[str | None, list[HitRow]]:
    out: dict[str | None, list[HitRow]] = defaultdict(list)
    for hit in hits:
        out[hit["session_id"]].append(hit)
    return out


def _by_call(reads: list[LessonReadRow]) -> dict[tuple[str, str], list[LessonReadRow]]:
    out: dict[tuple[str, str], list[LessonReadRow]] = defaultdict(list)
    for row in reads:
        out[(row["session_id"], row["tool_use_id"])].append(row)
    return out


def _resource(runtime: str, spans: list[Span]) -> ResourceSpans:
    service = _SERVICES.get(runtime, runtime)
    return {
        "resource": {"attributes": key_values({"service.name": service})},
        "scopeSpans": [
            {
                "scope": {"name": "lessons-analytics", "version": __version__},
                "spans": spans,
                "schemaUrl": SCHEMA_URL,
            }
        ],
        "schemaUrl": SCHEMA_URL,
    }


def _session_spans(
    session: SessionRow, found: _Rows, include_content: bool, summary: OtelSummary
) -> list[Span]:
    sid = session["session_id"]
    if session["started_at"] is None:
        summary.sessions_without_time += 1
        return []
    trace = trace_id(sid)
    root = span_id(sid, "session", "")
    runtime = session["runtime"] or "unknown"
    start = ns(session["started_at"])
    end = ns(session["ended_at"]) if session["ended_at"] is not None else start
    attributes: Attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": _PROVIDERS.get(runtime, runtime),
        "gen_ai.agent.name": runtime,
        "gen_ai.conversation.id": sid,
        "lessons.session.active_seconds": float(session["active_seconds"] or 0.0),
        "lessons.session.subagent_runs": int(session["subagent_runs"] or 0),
    }
    events = [_evaluation(hit, start, summary) for hit in found.hits.get(sid, [])]
    spans = [span(trace, root, None, f"invoke_agent {runtime}", start, end, attributes, events)]
    summary.session_spans += 1
    calls = [c for c in found.calls.get(sid, []) if _has_time(c, summary)]
    call_spans = {c["tool_use_id"]: span_id(sid, "call", c["tool_use_id"]) for c in calls}
    run_spans = _run_spans(session, found.runs.get(sid, []), root, call_spans, spans, summary)
    for call in calls:
        parent = run_spans.get(call["agent_run_id"], root)
        reads = found.reads.get((sid, call["tool_use_id"]), [])
        spans.append(_tool_span(trace, call_spans[call["tool_use_id"]], parent, call, reads,
                                include_content, summary))  # fmt: skip
    return spans


def _has_time(call: ToolCallRow, summary: OtelSummary) -> bool:
    if call["called_at"] is None:
        summary.calls_without_time += 1
        return False
    return True


def _run_spans(
    session: SessionRow,
    runs: list[AgentRunRow],
    root: str,
    call_spans: dict[str, str],
    spans: list[Span],
    summary: OtelSummary,
) -> dict[str, str]:
    """Append a span per subagent run; returns run id -> span id (main runs: the root)."""
    sid = session["session_id"]
    trace = trace_id(sid)
    out: dict[str, str] = {}
    for run in runs:
        if run["is_main"]:
            out[run["agent_run_id"]] = root
            continue
        if run["started_at"] is None:
            summary.runs_without_time += 1
            continue
        own = span_id(sid, "run", run["agent_run_id"])
        parent = call_spans.get(run["spawned_by_tool_use_id"] or "", root)
        name = run["agent_type"] or None
        attributes: Attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": _PROVIDERS.get(run["runtime"], run["runtime"]),
            "gen_ai.agent.id": run["agent_id"] or run["agent_key"],
            "gen_ai.agent.name": name,
            "gen_ai.conversation.id": sid,
        }
        start = ns(run["started_at"])
        end = ns(run["ended_at"]) if run["ended_at"] is not None else start
        title = f"invoke_agent {name}" if name else "invoke_agent"
        spans.append(span(trace, own, parent, title, start, end, attributes, []))
        summary.agent_spans += 1
        out[run["agent_run_id"]] = own
    return out


def _tool_span(
    trace: str,
    own: str,
    parent: str,
    call: ToolCallRow,
    reads: list[LessonReadRow],
    include_content: bool,
    summary: OtelSummary,
) -> Span:
    if call["called_at"] is None:  # left out by _has_time
        raise ValueError(f"tool call {call['tool_use_id']} has no time")
    start = ns(call["called_at"])
    if call["duration_s"] is not None:
        end = start + round(call["duration_s"] * 1e9)
    elif call["result_at"] is not None:
        end = max(start, ns(call["result_at"]))
    else:
        end = start
    error = _error_type(call)
    attributes: dict[str, object] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call["tool_name"],
        "gen_ai.tool.call.id": call["tool_use_id"],
        "gen_ai.tool.type": "function",
        "error.type": error,
        "lessons.tool.has_result": bool(call["has_result"]),
        "lessons.tool.exit_code": call["exit_code"],
    }
    if include_content:
        attributes["gen_ai.tool.call.arguments"] = redact(call["input_json"] or "") or None
        if error is None and call["has_result"]:
            attributes["gen_ai.tool.call.result"] = redact(call["result_head"] or "") or None
    events: list[Event] = []
    if reads:
        attributes.update(_read_attributes(reads[0]))
        attributes["lessons.read.count"] = len(reads)
        for read in reads[1:]:
            events.append(event("lessons.read", start, _read_attributes(read)))
            summary.read_events += 1
    summary.tool_spans += 1
    out = span(trace, own, parent, f"execute_tool {call['tool_name']}", start, end,
               attributes, events)  # fmt: skip
    if error is not None:
        out["status"] = {"code": STATUS_ERROR, "message": ERROR_TYPES[error]}
    return out


def _error_type(call: ToolCallRow) -> str | None:
    if call["is_rejected"]:
        return "rejected"
    if call["is_interrupt"]:
        return "interrupted"
    if not call["is_error"]:
        return None
    return "nonzero_exit" if call["exit_code"] not in (None, 0) else "tool_error"


def _read_attributes(read: LessonReadRow) -> dict[str, object]:
    return {
        "gen_ai.data_source.id": read["base_path"],
        "gen_ai.memory.record.id": read["lesson_id"],
        "lessons.read.kind": read["kind"],
        "lessons.read.path": read["path"],
        "lessons.read.lines_seen": read["lines_seen"],
        "lessons.read.truncated": bool(read["is_partial"]),
        "lessons.read.partial_reason": read["partial_reason"],
        "lessons.read.active_rows_seen": read["active_rows_seen"],
        "lessons.read.active_rows_total": read["active_rows_total"],
    }


def _evaluation(hit: HitRow, session_start: int, summary: OtelSummary) -> Event:
    label = hit["recall"]
    summary.evaluation_events += 1
    summary.labels[label] = summary.labels.get(label, 0) + 1
    when = ns(hit["missed_at"]) if hit["missed_at"] is not None else session_start
    attributes: Attributes = {
        "gen_ai.evaluation.name": "lesson_recall",
        "gen_ai.evaluation.score.label": label,
        "gen_ai.evaluation.explanation": _explanation(hit),
        "gen_ai.data_source.id": hit["base_path"],
        "gen_ai.memory.record.id": hit["lesson_id"],
        "lessons.hit.journal": f"{hit['file_path']}:{hit['line_no']}",
        "lessons.hit.defect": hit["defect"],
        "lessons.hit.caught_by": hit["caught_by"],
        "lessons.hit.recorded_recalled": hit["recorded_recalled"],
        "lessons.hit.disagrees": bool(hit["disagrees"]),
    }
    return event("gen_ai.evaluation.result", when, attributes)


def _explanation(hit: HitRow) -> str:
    if hit["recall"] == "recalled":
        return f"body read or id quoted at {_iso(hit['first_recall_at'])}, before the miss"
    if hit["recall"] == "index_only":
        return f"only its index row was delivered (at {_iso(hit['first_index_row_at'])})"
    if hit["recall"] == "not_recalled":
        return "no body read, quote or index row before the miss"
    return "the miss has no time: recall cannot be judged"


def _iso(value: datetime | None) -> str:
    if value is None:
        return "an unknown time"
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
