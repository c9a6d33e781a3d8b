"""OTLP/JSON export on the hand-worked scenario plus S8 (``export_world.py``), and on the demo.

Expected numbers, by hand from scenario.py and export_world.py:
  traces 7: S1 S2 S4 S5 S6 S7 S8 (S3 has no transcript).
  session spans 7; agent spans 1 (S5's scout); tool spans 18:
      S1 2 (head, Read) · S2 3 (head, cat, grep) · S4 2 (Read index, Read L-0001)
      S5 4 (Agent, the scout's cat, make test, make test without result) · S6 1 (ls;
      the replayed head is S1's) · S7 2 (sed, make test) · S8 4.
  spans carrying a lesson read 11: index reads 6 (S1 head, S2 head/cat/grep, S4 Read, S7
      sed) and calls reading bodies 5 (S1 Read, S4 Read, the scout's cat, S8's cat, S8's
      Read); gen_ai.memory.record.id on those 5: L-0001 x4, L-0002 (the scout). S8's cat
      carries L-0001 on the span and L-0002 as its one lessons.read event.
  truncated reads on spans 5: S2's three index reads, S4's index read, S8's Read limit 5.
  errors 2 (S8): curl -> tool_error, rm -> rejected.
  evaluation events 4: S1 recalled, S2 index_only, S4 not_recalled, S5 recalled; the hits
      of S3 and of the line naming no session have no span (2).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics import warehouse
from lessons_analytics.export_otel import ERROR_TYPES, write_otel
from lessons_analytics.metrics import Filters, parse_when
from lessons_analytics.otlp import span_id, trace_id
from tests.support import export_world, scenario
from tests.support.demo_warehouse import demo_warehouse

json_format = pytest.importorskip("google.protobuf.json_format")
trace_service_pb2 = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[scenario.Scenario, Path]:
    return export_world.build(tmp_path_factory.mktemp("otel"))


@pytest.fixture()
def con(world: tuple[scenario.Scenario, Path]) -> duckdb.DuckDBPyConnection:
    connection = warehouse.connect(world[1], read_only=True)
    yield connection
    connection.close()


def _export(con: duckdb.DuckDBPyConnection, path: Path, **kw: Any) -> tuple[Any, dict]:
    summary = write_otel(con, path, kw.pop("filters", Filters()), **kw)
    return summary, json.loads(path.read_text(encoding="utf-8"))


def _spans(doc: dict) -> list[dict]:
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _attrs(item: dict) -> dict[str, Any]:
    out = {}
    for kv in item.get("attributes", []):
        ((kind, value),) = kv["value"].items()
        out[kv["key"]] = int(value) if kind == "intValue" else value
    return out


# --- the OTLP JSON shape, checked field by field (opentelemetry-proto docs/specification.md,
# "JSON Protobuf Encoding"): hex ids, integer enums, 64-bit integers as decimal strings,
# lowerCamelCase keys, AnyValue with exactly one typed member.
HEX32, HEX16, U64 = (
    re.compile(r"^[0-9a-f]{32}$"),
    re.compile(r"^[0-9a-f]{16}$"),
    re.compile(r"^\d+$"),
)
SPAN_KEYS = {"traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano",
             "endTimeUnixNano", "attributes", "events", "status"}  # fmt: skip


def _check_value(value: dict) -> None:
    assert len(value) == 1, value
    ((kind, v),) = value.items()
    checks = {
        "stringValue": lambda: isinstance(v, str),
        "boolValue": lambda: isinstance(v, bool),
        "intValue": lambda: isinstance(v, str) and re.fullmatch(r"-?\d+", v),
        "doubleValue": lambda: isinstance(v, float | int) and not isinstance(v, bool),
        "arrayValue": lambda: all(_check_value(x) is None for x in v["values"]),
    }
    assert kind in checks and checks[kind](), value


def _check_attributes(items: list[dict]) -> None:
    keys = [kv["key"] for kv in items]
    assert len(keys) == len(set(keys)), keys
    for kv in items:
        assert set(kv) == {"key", "value"}
        _check_value(kv["value"])


def check_otlp_shape(doc: dict) -> None:
    assert set(doc) == {"resourceSpans"}
    ids: dict[str, set[str]] = {}
    spans = _spans(doc)
    for rs in doc["resourceSpans"]:
        assert set(rs) == {"resource", "scopeSpans", "schemaUrl"}
        _check_attributes(rs["resource"]["attributes"])
        for ss in rs["scopeSpans"]:
            assert set(ss) == {"scope", "spans", "schemaUrl"}
    for span in spans:
        assert set(span) <= SPAN_KEYS, set(span) - SPAN_KEYS
        assert HEX32.match(span["traceId"]) and span["traceId"] != "0" * 32
        assert HEX16.match(span["spanId"]) and span["spanId"] != "0" * 16
        assert span["kind"] == 1  # INTERNAL, as an integer
        assert U64.match(span["startTimeUnixNano"]) and U64.match(span["endTimeUnixNano"])
        assert int(span["startTimeUnixNano"]) <= int(span["endTimeUnixNano"])
        _check_attributes(span["attributes"])
        for event in span.get("events", []):
            assert set(event) == {"timeUnixNano", "name", "attributes"}
            assert U64.match(event["timeUnixNano"])
            _check_attributes(event["attributes"])
        if "status" in span:
            assert span["status"]["code"] == 2 and span["status"]["message"]
        ids.setdefault(span["traceId"], set())
        assert span["spanId"] not in ids[span["traceId"]], "span ids repeat in a trace"
        ids[span["traceId"]].add(span["spanId"])
    for span in spans:
        if "parentSpanId" in span:
            assert span["parentSpanId"] in ids[span["traceId"]], "parent outside the trace"
    roots = [s for s in spans if "parentSpanId" not in s]
    assert len(roots) == len(ids), "one root span per trace"


def load_proto(text: str) -> Any:
    """Parse with the official proto classes. The proto3 JSON mapping reads bytes as base64,
    OTLP writes hex (the documented deviation), so ids are converted first; unknown field
    names are an error here (ignore_unknown_fields=False), which checks every key."""
    doc = json.loads(text)
    for span in _spans(doc):
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    request = trace_service_pb2.ExportTraceServiceRequest()
    json_format.Parse(json.dumps(doc), request, ignore_unknown_fields=False)
    return request


def test_counts_on_the_scenario(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    summary, doc = _export(con, tmp_path / "t.json")
    check_otlp_shape(doc)
    spans = _spans(doc)
    names = [s["name"] for s in spans]
    assert (summary.traces, summary.session_spans, summary.agent_spans, summary.tool_spans) == (
        7, 7, 1, 18)  # fmt: skip
    assert len(spans) == summary.spans == 26
    assert len({s["traceId"] for s in spans}) == 7
    assert sum(n.startswith("execute_tool ") for n in names) == 18
    assert names.count("invoke_agent claude") == 6 and names.count("invoke_agent codex") == 1
    assert names.count("invoke_agent scout") == 1
    reads = [_attrs(s) for s in spans if "gen_ai.data_source.id" in _attrs(s)]
    assert len(reads) == 11
    assert {r["gen_ai.data_source.id"] for r in reads} == {str(con_base(con))}
    assert sorted(r["gen_ai.memory.record.id"] for r in reads if "gen_ai.memory.record.id" in r) \
        == ["L-0001", "L-0001", "L-0001", "L-0001", "L-0002"]  # fmt: skip
    assert sum(r["lessons.read.truncated"] for r in reads) == 5
    assert summary.read_events == 1 and summary.evaluation_events == 4
    assert summary.hits_without_span == 2
    assert summary.labels == {"recalled": 2, "index_only": 1, "not_recalled": 1}


def con_base(con: duckdb.DuckDBPyConnection) -> str:
    (row,) = con.execute("select base_path from dim_bases").fetchall()
    return str(row[0])


def test_session_and_subagent_spans(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    _, doc = _export(con, tmp_path / "t.json")
    spans = _spans(doc)
    s5 = [s for s in spans if s["traceId"] == "55555555555545558555555555555555"]
    (root,) = [s for s in s5 if "parentSpanId" not in s]
    assert root["spanId"] == span_id(scenario.S5, "session", "")
    assert _attrs(root)["gen_ai.conversation.id"] == scenario.S5
    assert _attrs(root)["gen_ai.provider.name"] == "anthropic"
    assert (root["startTimeUnixNano"], root["endTimeUnixNano"]) == (
        str(_ns("2026-11-12T10:00:00Z")), str(_ns("2026-11-12T11:00:00Z")))  # fmt: skip
    (scout,) = [s for s in s5 if s["name"] == "invoke_agent scout"]
    (spawn,) = [s for s in s5 if s["name"] == "execute_tool Agent"]
    assert scout["parentSpanId"] == spawn["spanId"] and spawn["parentSpanId"] == root["spanId"]
    assert _attrs(scout)["gen_ai.agent.id"] == scenario.AGENT
    (cat,) = [s for s in s5 if _attrs(s).get("gen_ai.memory.record.id") == "L-0002"]
    assert cat["parentSpanId"] == scout["spanId"]
    tests = [s for s in s5 if s["name"] == "execute_tool Bash" and s is not cat]
    durations = sorted(int(s["endTimeUnixNano"]) - int(s["startTimeUnixNano"]) for s in tests)
    assert durations == [0, 120 * 10**9]  # the call without a result is zero-length
    assert sorted(_attrs(s)["lessons.tool.has_result"] for s in tests) == [False, True]
    s7 = [s for s in spans if s["traceId"] == trace_id(scenario.S7)]
    (make,) = [s for s in s7 if s["name"] == "execute_tool shell_command"]
    assert int(make["endTimeUnixNano"]) - int(make["startTimeUnixNano"]) == 300 * 10**9


def _ns(text: str) -> int:
    when = parse_when(text)
    assert when is not None
    return int(when.timestamp()) * 10**9


def test_errors_and_reads_of_s8(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    _, doc = _export(con, tmp_path / "t.json")
    s8 = [s for s in _spans(doc) if s["traceId"] == trace_id(export_world.S8)]
    errors = {_attrs(s)["error.type"]: s for s in s8 if "error.type" in _attrs(s)}
    assert set(errors) == {"tool_error", "rejected"}
    assert errors["rejected"]["status"] == {"code": 2, "message": ERROR_TYPES["rejected"]}
    (cat,) = [s for s in s8 if s.get("events")]
    assert _attrs(cat)["gen_ai.memory.record.id"] == "L-0001"
    assert _attrs(cat)["lessons.read.count"] == 2
    ((event),) = cat["events"]
    assert event["name"] == "lessons.read" and event["timeUnixNano"] == cat["startTimeUnixNano"]
    assert _attrs(event)["gen_ai.memory.record.id"] == "L-0002"
    (partial,) = [s for s in s8 if _attrs(s).get("lessons.read.truncated")]
    assert _attrs(partial)["lessons.read.lines_seen"] == 5
    assert _attrs(partial)["lessons.read.partial_reason"] == "range"


def test_content_is_opt_in_and_redacted(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    plain = tmp_path / "plain.json"
    _export(con, plain)
    assert "gen_ai.tool.call.arguments" not in plain.read_text()
    assert export_world.SECRET not in plain.read_text()
    _, doc = _export(con, tmp_path / "content.json", include_content=True)
    assert export_world.SECRET not in (tmp_path / "content.json").read_text()
    s8 = [_attrs(s) for s in _spans(doc) if s["traceId"] == trace_id(export_world.S8)]
    (curl,) = [a for a in s8 if a.get("error.type") == "tool_error"]
    assert "[REDACTED:token]" in curl["gen_ai.tool.call.arguments"]
    assert "gen_ai.tool.call.result" not in curl  # results only for calls that succeeded
    with_result = [a for a in s8 if "gen_ai.tool.call.result" in a]
    assert len(with_result) == 2  # the cat and the Read


def test_evaluation_events(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    _, doc = _export(con, tmp_path / "t.json")
    found = {}
    for span in _spans(doc):
        for event in span.get("events", []):
            if event["name"] == "gen_ai.evaluation.result":
                assert "parentSpanId" not in span  # on the session's invoke_agent span
                found[span["traceId"]] = (_attrs(event), event["timeUnixNano"])
    assert {t: a["gen_ai.evaluation.score.label"] for t, (a, _) in found.items()} == {
        trace_id(scenario.S1): "recalled",
        trace_id(scenario.S2): "index_only",
        trace_id(scenario.S4): "not_recalled",
        trace_id(scenario.S5): "recalled",
    }
    s2, when = found[trace_id(scenario.S2)]
    assert when == str(_ns("2026-11-10T10:30:00Z"))
    assert s2["gen_ai.evaluation.name"] == "lesson_recall"
    assert s2["gen_ai.memory.record.id"] == "L-0001"
    assert s2["lessons.hit.disagrees"] is True and s2["lessons.hit.caught_by"] == "human"


def test_ids_are_stable_and_follow_the_rule(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    first = tmp_path / "a.json"
    second = tmp_path / "b.json"
    write_otel(con, first, Filters())
    write_otel(con, second, Filters())
    assert first.read_bytes() == second.read_bytes()
    assert trace_id(scenario.S1) == "11111111111141118111111111111111"
    assert trace_id("not-a-uuid") == trace_id("not-a-uuid") != trace_id("not-a-uuid2")
    assert len(trace_id("not-a-uuid")) == 32 and len(span_id("x", "call", "y")) == 16
    assert first.read_text().count("\n") == 1  # one request on one line (OTLP JSON Lines)


def test_filters_select_sessions(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    since = parse_when("2026-11-12")
    summary, doc = _export(con, tmp_path / "t.json", filters=Filters(since=since))
    assert summary.traces == 4  # S5, S6, S7, S8
    assert summary.evaluation_events == 1  # S5's hit; the others' sessions are left out
    assert summary.hits_without_span == 5


def test_loads_into_the_otlp_proto_classes(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    write_otel(con, path, Filters(), include_content=True)
    request = load_proto(path.read_text())
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert len(spans) == 26
    roots = [s for s in spans if not s.parent_span_id]
    assert {s.trace_id.hex() for s in roots} == {trace_id(sid) for sid in (
        scenario.S1, scenario.S2, scenario.S4, scenario.S5, scenario.S6, scenario.S7,
        export_world.S8)}  # fmt: skip
    assert all(len(s.trace_id) == 16 and len(s.span_id) == 8 for s in spans)
    services = {rs.resource.attributes[0].value.string_value for rs in request.resource_spans}
    assert services == {"claude-code", "codex"}


def test_shape_check_rejects_a_broken_file() -> None:
    bad = {"resourceSpans": [{"resource": {"attributes": []}, "schemaUrl": "x", "scopeSpans": [
        {"scope": {}, "schemaUrl": "x", "spans": [{
            "traceId": "AAAA", "spanId": "0" * 16, "name": "x", "kind": 1,
            "startTimeUnixNano": 1, "endTimeUnixNano": "2", "attributes": []}]}]}]}  # fmt: skip
    with pytest.raises(AssertionError):
        check_otlp_shape(bad)


def test_demo_export_end_to_end(tmp_path: Path) -> None:
    workspace, db = demo_warehouse(tmp_path / "demo")
    con = warehouse.connect(db, read_only=True)
    try:
        path = tmp_path / "demo.json"
        summary = write_otel(con, path, Filters())
        sessions, runs, calls, hits = con.execute(
            "select (select count(*) from fct_sessions where started_at is not null),"
            " (select count(*) from dim_agent_runs where not is_main and started_at is not null),"
            " (select count(*) from fct_tool_calls where called_at is not null),"
            " (select count(*) from fct_hit_attribution where session_found)"
        ).fetchone()
        failed = con.execute(
            "select count(*) from fct_tool_calls where called_at is not null"
            " and (is_error or is_interrupt or is_rejected)"
        ).fetchone()[0]
    finally:
        con.close()
    doc = json.loads(path.read_text())
    check_otlp_shape(doc)
    load_proto(path.read_text())
    spans = _spans(doc)
    assert summary.traces == sessions and summary.agent_spans == runs
    assert summary.tool_spans == calls and summary.evaluation_events == hits
    assert len(spans) == sessions + runs + calls
    assert sum("error.type" in _attrs(s) for s in spans) == failed


def test_cli_writes_traces_and_says_so(
    world: tuple[scenario.Scenario, Path], tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from lessons_analytics.cli import cli

    out = tmp_path / "traces.json"
    args = ["--db", str(world[1]), "export", "--otel", str(out), "--otel-content", "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)["otel"]
    assert (document["traces"], document["spans"], document["events"]) == (7, 26, 5)
    assert document["skipped"] == {"hits_without_span": 2}
    assert "[REDACTED:token]" in out.read_text()
    result = CliRunner().invoke(cli, ["--db", str(world[1]), "export", "--otel", str(out)])
    assert result.exit_code == 0
    assert result.output.startswith(f"otel: 7 traces, 26 spans, 5 events (semantic conventions "
                                    f"1.41.0) → {out}\n")  # fmt: skip
    missing = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.duckdb"), "export",
                                       "--otel", str(out)])  # fmt: skip
    assert missing.exit_code == 1 and "no warehouse yet" in missing.output
    assert CliRunner().invoke(cli, ["--db", str(world[1]), "export"]).exit_code == 2


def test_nothing_selected_gives_an_empty_request(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    summary, doc = _export(
        con, tmp_path / "t.json", filters=Filters(since=parse_when("2030-01-01"))
    )
    assert doc == {"resourceSpans": []} and summary.spans == 0
    assert summary.hits_without_span == 6  # every hit: no session is exported
    load_proto((tmp_path / "t.json").read_text())
