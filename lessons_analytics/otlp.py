"""OTLP/JSON encoding: spans, events, attribute values and the derived ids.

The encoding of the OTLP specification ("JSON Protobuf Encoding"): trace and span ids as
lowercase hex, enums as integers, 64-bit integers (nanosecond times, int attributes) as
decimal strings, lowerCamelCase keys, each AnyValue with exactly one typed member.

Ids are derived, so a re-export gives the same ids: the trace id is the session id's 128
bits when it is a UUID (so the id pastes into a trace search), else the first 16 bytes of
sha256("lessons-analytics/trace/" + session id); a span id is the first 8 bytes of
sha256("lessons-analytics/span/" + session id + "/" + kind + "/" + key). Zero ids (invalid
in OTLP) are skipped for the next 8 (16) bytes of the digest.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import NotRequired, TypedDict

__all__ = ["EPOCH", "SPAN_KIND_INTERNAL", "STATUS_ERROR", "AnyValue", "Attributes", "Event",
           "KeyValue", "ResourceSpans", "Span", "Status", "TraceRequest", "any_value", "event",
           "key_values", "ns", "span", "span_id", "trace_id"]  # fmt: skip

SPAN_KIND_INTERNAL = 1
STATUS_ERROR = 2
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# The OTLP/JSON messages this package writes; the keys are the specification's
# lowerCamelCase field names.


class ArrayValue(TypedDict):
    values: list[AnyValue]


class AnyValue(TypedDict, total=False):
    """Exactly one member is set."""

    boolValue: bool
    intValue: str
    doubleValue: float
    stringValue: str
    arrayValue: ArrayValue


class KeyValue(TypedDict):
    key: str
    value: AnyValue


class Event(TypedDict):
    timeUnixNano: str
    name: str
    attributes: list[KeyValue]


class Status(TypedDict):
    code: int
    message: str


class Span(TypedDict):
    traceId: str
    spanId: str
    parentSpanId: NotRequired[str]
    name: str
    kind: int
    startTimeUnixNano: str
    endTimeUnixNano: str
    attributes: list[KeyValue]
    events: NotRequired[list[Event]]
    status: NotRequired[Status]


class Resource(TypedDict):
    attributes: list[KeyValue]


class Scope(TypedDict):
    name: str
    version: str


class ScopeSpans(TypedDict):
    scope: Scope
    spans: list[Span]
    schemaUrl: str


class ResourceSpans(TypedDict):
    resource: Resource
    scopeSpans: list[ScopeSpans]
    schemaUrl: str


class TraceRequest(TypedDict):
    """An ``ExportTraceServiceRequest``."""

    resourceSpans: list[ResourceSpans]


# An attribute's value: a bool, int, float or a list of them is typed in OTLP, anything
# else is written as its string; None is left out.
Attributes = Mapping[str, object]


def span(
    trace: str,
    own: str,
    parent: str | None,
    name: str,
    start: int,
    end: int,
    attributes: Attributes,
    events: list[Event],
) -> Span:
    # two literals, so the keys keep the order of the message (parentSpanId after spanId)
    first, last, values = str(start), str(max(start, end)), key_values(attributes)
    if parent is None:
        span: Span = {"traceId": trace, "spanId": own, "name": name, "kind": SPAN_KIND_INTERNAL,
                      "startTimeUnixNano": first, "endTimeUnixNano": last,
                      "attributes": values}  # fmt: skip
    else:
        span = {"traceId": trace, "spanId": own, "parentSpanId": parent, "name": name,
                "kind": SPAN_KIND_INTERNAL, "startTimeUnixNano": first, "endTimeUnixNano": last,
                "attributes": values}  # fmt: skip
    if events:
        span["events"] = events
    return span


def event(name: str, when: int, attributes: Attributes) -> Event:
    return {"timeUnixNano": str(when), "name": name, "attributes": key_values(attributes)}


def key_values(values: Attributes) -> list[KeyValue]:
    """OTLP KeyValue list; null values are left out (OTLP has no null)."""
    return [{"key": k, "value": any_value(v)} for k, v in values.items() if v is not None]


def any_value(value: object) -> AnyValue:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def trace_id(session_id: str) -> str:
    """32 hex digits: the session's UUID, else a digest of the session id."""
    try:
        parsed = uuid.UUID(session_id)
    except ValueError:
        parsed = None
    if parsed is not None and parsed.int != 0:
        return parsed.hex
    return _nonzero(hashlib.sha256(f"lessons-analytics/trace/{session_id}".encode()).digest(), 16)


def span_id(session_id: str, kind: str, key: str) -> str:
    """16 hex digits derived from the session, the kind of span and its key."""
    text = f"lessons-analytics/span/{session_id}/{kind}/{key}"
    return _nonzero(hashlib.sha256(text.encode()).digest(), 8)


def _nonzero(digest: bytes, size: int) -> str:
    for offset in range(0, len(digest) - size + 1, size):
        chunk = digest[offset : offset + size]
        if any(chunk):
            return chunk.hex()
    raise ValueError("a digest of zeros")  # sha256 never gives one; kept for the type checker


def ns(value: datetime) -> int:
    """Nanoseconds since the epoch, exact (the warehouse holds microseconds)."""
    return (value - EPOCH) // timedelta(microseconds=1) * 1000
