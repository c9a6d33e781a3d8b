"""OCEL 2.0 export on the hand-worked scenario plus S8 (``export_world.py``), and on the demo.

Expected numbers, by hand from scenario.py and export_world.py:
  events 30:
    read 6            S1 head, S1 Read L-0001, S4 Read L-0001, the scout's cat of L-0002,
                      S7 sed, S8 cat of L-0001 + L-0002
    read-partially 5  S2 head (blind), S2 cat (blind), S2 grep (rows missing), S4 Read of
                      the index (blind), S8 Read limit 5 (range)
    tool-call 7       S5 Agent, make test, make test -k; S6 ls; S7 make test; S8 curl, rm
    miss 6, caught 6  the six hits (the form-only line is not one); all name a catcher
  objects 39: session 7, agent run 8 (7 mains + the scout), lesson 3, hit 6, file 4
      (INDEX.md and the three lesson files), command 11 (13 shell calls; head -40 and
      make test each appear twice with the same text).
  event-object 105 = calls 77 (session + run 36, body read 6, index row seen 9, reads 12,
      runs 13, spawns 1) + miss 16 (records + missed 12, during 4: S1 S2 S4 S5) + caught 12.
  object-object 22 = part of 8 + spawned by 1 + hit of lesson 6 + hit in session 4 +
      lesson stored in 3.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics import warehouse
from lessons_analytics.export_ocel import EVENT_TYPES, OBJECT_TYPES, build_ocel, write_ocel
from lessons_analytics.metrics import Filters, parse_when
from tests.support import export_world, scenario
from tests.support.demo_warehouse import demo_warehouse

jsonschema = pytest.importorskip("jsonschema")
SCHEMA = Path(__file__).parent / "data" / "ocel" / "ocel20-schema-json.json"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[scenario.Scenario, Path]:
    return export_world.build(tmp_path_factory.mktemp("ocel"))


@pytest.fixture()
def con(world: tuple[scenario.Scenario, Path]) -> duckdb.DuckDBPyConnection:
    connection = warehouse.connect(world[1], read_only=True)
    yield connection
    connection.close()


@pytest.fixture()
def doc(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "log.json"
    write_ocel(build_ocel(con, Filters()), path)
    return json.loads(path.read_text(encoding="utf-8"))


def validate(document: dict[str, Any]) -> list[str]:
    """Errors of ``document`` against the standard's schema, plus the checks the schema
    leaves to the reader: times that parse, declared types, references that resolve."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    checker = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [e.message for e in checker.iter_errors(document)]
    declared = {
        kind: {t["name"]: {a["name"]: a["type"] for a in t["attributes"]} for t in document[key]}
        for kind, key in (("event", "eventTypes"), ("object", "objectTypes"))
    }
    objects = {o["id"] for o in document["objects"]}
    for kind, items in (("event", document["events"]), ("object", document["objects"])):
        ids = [i["id"] for i in items]
        errors += [f"duplicate {kind} id {i}" for i, n in Counter(ids).items() if n > 1]
        for item in items:
            attrs = declared[kind].get(item.get("type", ""))
            if attrs is None:
                errors.append(f"{item['id']}: undeclared type {item.get('type')}")
                continue
            for times in [item.get("time")] + [a.get("time") for a in item["attributes"]]:
                if times is not None:
                    datetime.fromisoformat(times)
            for attr in item["attributes"]:
                if attr["name"] not in attrs:
                    errors.append(f"{item['id']}: undeclared attribute {attr['name']}")
                elif not _reads_as(attr["value"], attrs[attr["name"]]):
                    errors.append(f"{item['id']}: {attr['name']} is not {attrs[attr['name']]}")
            for rel in item.get("relationships", []):
                if rel["objectId"] not in objects:
                    errors.append(f"{item['id']} -> missing {rel['objectId']}")
    return errors


def _reads_as(value: str, declared: str) -> bool:
    try:
        {"integer": int, "float": float, "time": datetime.fromisoformat}.get(declared, str)(value)
    except ValueError:
        return False
    return declared != "boolean" or value in ("true", "false")


def test_validates_against_the_standard_schema(doc: dict[str, Any]) -> None:
    assert validate(doc) == []


def test_the_validation_can_fail(doc: dict[str, Any]) -> None:
    def broken(change: Any) -> list[str]:
        copy = json.loads(json.dumps(doc))
        change(copy)
        return validate(copy)

    number = broken(lambda d: d["events"][0]["attributes"].append({"name": "tool", "value": 3}))
    assert any("3 is not of type 'string'" in e for e in number)
    untyped = broken(lambda d: d["objects"][0].pop("type"))
    assert any("'type' is a required property" in e for e in untyped)
    dangling = broken(lambda d: d["events"][1]["relationships"].append(
        {"objectId": "nowhere", "qualifier": "x"}))  # fmt: skip
    assert any("missing nowhere" in e for e in dangling)
    bad_int = broken(lambda d: d["events"][0]["attributes"].append(
        {"name": "lines_seen", "value": "many"}))  # fmt: skip
    assert any("lines_seen is not integer" in e for e in bad_int)


def test_counts_on_the_scenario(doc: dict[str, Any]) -> None:
    events = Counter(e["type"] for e in doc["events"])
    objects = Counter(o["type"] for o in doc["objects"])
    assert events == {"read": 6, "read-partially": 5, "tool-call": 7, "miss": 6, "caught": 6}
    assert objects == {"session": 7, "agent run": 8, "lesson": 3, "hit": 6, "file": 4,
                       "command": 11}  # fmt: skip
    assert (sum(events.values()), sum(objects.values())) == (30, 39)
    e2o = Counter(r["qualifier"] for e in doc["events"] for r in e["relationships"])
    assert e2o == {"in session": 18, "by run": 18, "body read": 6, "index row seen": 9,
                   "reads": 12, "runs": 13, "spawns": 1, "records": 6, "missed": 12,
                   "during": 4, "caught": 6}  # fmt: skip
    assert sum(e2o.values()) == 105
    o2o = Counter(r["qualifier"] for o in doc["objects"] for r in o["relationships"])
    assert o2o == {"part of": 8, "spawned by": 1, "of lesson": 6, "in session": 4,
                   "stored in": 3}  # fmt: skip
    assert [t["name"] for t in doc["eventTypes"]] == list(EVENT_TYPES)
    assert [t["name"] for t in doc["objectTypes"]] == list(OBJECT_TYPES)


def _by_id(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in items}


def _values(item: dict[str, Any]) -> dict[str, str]:
    return {a["name"]: a["value"] for a in item["attributes"]}


def test_reads_and_their_objects(
    doc: dict[str, Any], world: tuple[scenario.Scenario, Path]
) -> None:
    base = str(world[0].base)
    events = [e for e in doc["events"] if e["type"].startswith("read")]
    partial = {e["id"]: _values(e) for e in events if e["type"] != "read"}
    assert Counter(v["partial_reason"] for v in partial.values()) == {
        "blind": 3, "rows missing": 1, "range": 1}  # fmt: skip
    (s8_read,) = [v for k, v in partial.items() if export_world.S8 in k]
    assert (s8_read["lines_seen"], s8_read["kind"]) == ("5", "body")
    (cat,) = [e for e in events if export_world.S8 in e["id"] and _values(e)["tool"] == "Bash"]
    lessons = sorted(r["objectId"] for r in cat["relationships"] if r["qualifier"] == "body read")
    assert lessons == [f"lesson:{base}#L-0001", f"lesson:{base}#L-0002"]
    (s1_head,) = [e for e in events if scenario.S1 in e["id"] and _values(e)["kind"] == "index"]
    seen = {r["objectId"] for r in s1_head["relationships"] if r["qualifier"] == "index row seen"}
    assert seen == {f"lesson:{base}#L-000{n}" for n in (1, 2, 3)}
    assert s1_head["time"] == "2026-11-03T10:00:05Z"


def test_hits_and_lessons(doc: dict[str, Any], world: tuple[scenario.Scenario, Path]) -> None:
    base = str(world[0].base)
    objects = _by_id(doc["objects"])
    lesson = objects[f"lesson:{base}#L-0001"]
    revisions = [(a["name"], a["time"]) for a in lesson["attributes"] if a["time"] > "1970"]
    assert ("commit", "2026-11-02T09:00:00Z") in revisions
    assert _values(lesson)["status"] == "active" and _values(lesson)["hits"] == "5"
    misses = [e for e in doc["events"] if e["type"] == "miss"]
    recall = Counter(_values(e)["recall"] for e in misses)
    assert recall == {"recalled": 2, "index_only": 1, "not_recalled": 1, "unknown": 2}
    (s2,) = [e for e in misses if {"objectId": f"session:{scenario.S2}", "qualifier": "during"}
             in e["relationships"]]  # fmt: skip
    assert s2["time"] == "2026-11-10T10:30:00Z" and _values(s2)["disagrees"] == "true"
    undated = [e for e in misses if not any(r["qualifier"] == "during" for r in e["relationships"])]
    # S3's hit and the line naming no session: no session object, the miss at the line's date
    assert sorted(e["time"] for e in undated) == ["2026-11-10T00:00:00Z", "2026-11-11T00:00:00Z"]
    caught = Counter(_values(e)["caught_by"] for e in doc["events"] if e["type"] == "caught")
    assert caught == {"gate": 3, "human": 2, "ci": 1}


def test_runs_and_commands(doc: dict[str, Any]) -> None:
    objects = _by_id(doc["objects"])
    scout = objects[f"run:{scenario.S5}/{scenario.AGENT}"]
    rel = {(r["qualifier"], r["objectId"]) for r in scout["relationships"]}
    assert rel == {("part of", f"session:{scenario.S5}"), ("spawned by", f"run:{scenario.S5}/main")}
    assert _values(scout) == {"agent_key": scenario.AGENT, "agent_id": scenario.AGENT,
                              "agent_type": "scout", "is_main": "false"}  # fmt: skip
    commands = [_values(o)["text"] for o in objects.values() if o["type"] == "command"]
    assert "make test" in commands and export_world.SECRET not in json.dumps(doc)
    assert any("[REDACTED:token]" in c for c in commands)


def test_filters(con: duckdb.DuckDBPyConnection) -> None:
    log = build_ocel(con, Filters(since=parse_when("2026-11-12")))
    counts = log.counts()
    assert counts["objects"]["session"] == 4  # S5 S6 S7 S8
    assert counts["events"]["miss"] == 1  # S5's miss (2026-11-12); the rest are earlier


def _sqlite_as_json(path: Path) -> dict[str, Any]:
    """Read the SQLite layout back into the JSON shape (values as the JSON layout writes)."""
    con = sqlite3.connect(path)
    con.row_factory = sqlite3.Row
    try:
        maps = {
            k: dict(con.execute(f"select ocel_type, ocel_type_map from {k}_map_type").fetchall())
            for k in ("event", "object")
        }
        e2o: dict[str, list[dict[str, str]]] = {}
        for r in con.execute("select * from event_object"):
            e2o.setdefault(r[0], []).append({"objectId": r[1], "qualifier": r[2]})
        o2o: dict[str, list[dict[str, str]]] = {}
        for r in con.execute("select * from object_object"):
            o2o.setdefault(r[0], []).append({"objectId": r[1], "qualifier": r[2]})
        events = []
        for ocel_id, ocel_type in con.execute("select ocel_id, ocel_type from event"):
            (row,) = con.execute(
                f'select * from "event_{maps["event"][ocel_type]}" where ocel_id = ?', (ocel_id,)
            ).fetchall()
            events.append((ocel_id, ocel_type, row["ocel_time"], e2o.get(ocel_id, [])))
        objects = []
        for ocel_id, ocel_type in con.execute("select ocel_id, ocel_type from object"):
            rows = con.execute(
                f'select * from "object_{maps["object"][ocel_type]}" where ocel_id = ?', (ocel_id,)
            ).fetchall()
            assert sum(r["ocel_changed_field"] is None for r in rows) == 1  # one initial row
            changes = (
                len(rows)
                - 1
                + sum(v is not None for k, v in dict(rows[0]).items() if not k.startswith("ocel_"))
            )
            objects.append((ocel_id, ocel_type, changes, o2o.get(ocel_id, [])))  # fmt: skip
        return {"events": events, "objects": objects}
    finally:
        con.close()


def test_sqlite_layout_holds_the_same_log(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    log = build_ocel(con, Filters())
    write_ocel(log, tmp_path / "log.json")
    summary = write_ocel(log, tmp_path / "log.sqlite")
    assert summary.layout == "sqlite" and summary.document()["events"] == 30
    doc = json.loads((tmp_path / "log.json").read_text())
    back = _sqlite_as_json(tmp_path / "log.sqlite")
    as_sql = {e["id"]: (e["type"], e["time"].replace("T", " ").rstrip("Z"), e["relationships"])
              for e in doc["events"]}  # fmt: skip
    assert {i: (t, w, r) for i, t, w, r in back["events"]} == as_sql
    objects = {
        o["id"]: (o["type"], len(o["attributes"]), o["relationships"]) for o in doc["objects"]
    }
    assert {i: (t, n, r) for i, t, n, r in back["objects"]} == objects
    tables = {r[0] for r in sqlite3.connect(tmp_path / "log.sqlite").execute(
        "select name from sqlite_master where type = 'table'")}  # fmt: skip
    assert {"event", "object", "event_object", "object_object", "event_map_type",
            "object_map_type", "event_ReadPartially", "object_AgentRun"} <= tables  # fmt: skip


def test_unknown_suffix_is_refused(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="ends in .json"):
        write_ocel(build_ocel(con, Filters()), tmp_path / "log.xml")


def test_demo_export_end_to_end(tmp_path: Path) -> None:
    workspace, db = demo_warehouse(tmp_path / "demo")
    con = warehouse.connect(db, read_only=True)
    try:
        log = build_ocel(con, Filters())
        calls, untimed, sessions, runs, hits = con.execute(
            "select (select count(*) from fct_tool_calls where called_at is not null),"
            " (select count(*) from fct_tool_calls where called_at is null),"
            " (select count(*) from fct_sessions), (select count(*) from dim_agent_runs),"
            " (select count(*) from fct_hit_attribution)"
        ).fetchone()
    finally:
        con.close()
    summary = write_ocel(log, tmp_path / "demo.json")
    write_ocel(log, tmp_path / "demo.sqlite")
    doc = json.loads((tmp_path / "demo.json").read_text())
    assert validate(doc) == []
    types = summary.by_type
    assert sum(types["events"][t] for t in ("read", "read-partially", "tool-call")) == calls
    assert types["events"]["miss"] == hits
    assert (types["objects"]["session"], types["objects"]["agent run"]) == (sessions, runs)
    assert summary.skipped == ({"tool_calls_without_time": untimed} if untimed else {})
    back = _sqlite_as_json(tmp_path / "demo.sqlite")
    assert len(back["events"]) == len(doc["events"]) and len(back["objects"]) == len(doc["objects"])


def test_cli_writes_both_layouts(world: tuple[scenario.Scenario, Path], tmp_path: Path) -> None:
    from click.testing import CliRunner

    from lessons_analytics.cli import cli

    db = str(world[1])
    for name in ("log.json", "log.sqlite"):
        result = CliRunner().invoke(cli, ["--db", db, "export", "--ocel", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        layout = name.split(".")[1]
        assert result.output == (f"ocel: 30 events, 39 objects, 127 relationships ({layout}) → "
                                 f"{tmp_path / name}\n")  # fmt: skip
    result = CliRunner().invoke(
        cli, ["--db", db, "export", "--ocel", str(tmp_path / "log.json"), "--json",
              "--base", str(world[0].base), "--until", "2026-11-10"])  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)["ocel"]
    # --until includes the whole day: S1 and S2; misses of S1, S2 and S3 (dated 2026-11-10)
    assert document["object_types"]["session"] == 2 and document["event_types"]["miss"] == 3
    bad = CliRunner().invoke(cli, ["--db", db, "export", "--ocel", str(tmp_path / "log.xml")])
    assert bad.exit_code == 2 and "must end in .json or .sqlite" in bad.output


def test_nothing_selected_gives_a_valid_empty_log(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    log = build_ocel(con, Filters(since=parse_when("2030-01-01"), bases=("/nowhere",)))
    write_ocel(log, tmp_path / "empty.json")
    write_ocel(log, tmp_path / "empty.sqlite")
    doc = json.loads((tmp_path / "empty.json").read_text())
    assert (doc["events"], doc["objects"]) == ([], []) and validate(doc) == []
    assert _sqlite_as_json(tmp_path / "empty.sqlite") == {"events": [], "objects": []}
