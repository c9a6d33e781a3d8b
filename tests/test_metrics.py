"""Every metric on the hand-worked scenario of ``scenario.py`` (read its docstring first)."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pytest

from lessons_analytics import metrics, warehouse
from lessons_analytics.ingestion import ingest
from lessons_analytics.settings import Thresholds
from tests.support import scenario
from tests.support.scenario import S1, S2, S4, S5, S6, S7

T = Thresholds()  # the defaults


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[scenario.Scenario, Path]:
    root = tmp_path_factory.mktemp("scenario")
    built = scenario.build(root)
    db = root / "w.duckdb"
    report = ingest(db, [built.projects, built.codex])
    assert report.document()["load_errors"] == 0, report.document()["errors"]
    return built, db


@pytest.fixture()
def con(world: tuple[scenario.Scenario, Path]) -> duckdb.DuckDBPyConnection:
    connection = warehouse.connect(world[1], read_only=True)
    yield connection
    connection.close()


def _base(doc: dict, world: tuple[scenario.Scenario, Path]) -> dict:
    (entry,) = [b for b in doc["bases"] if b["base"] == str(world[0].base)]
    return entry


def test_sessions_and_runs(con: duckdb.DuckDBPyConnection) -> None:
    sessions = {r[0] for r in con.execute("select session_id from fct_sessions").fetchall()}
    assert sessions == {S1, S2, S4, S5, S6, S7}
    runs = con.execute(
        "select agent_key, spawned_by_tool_use_id is not null from dim_agent_runs"
        " where session_id = ? order by agent_key",
        [S5],
    ).fetchall()
    assert runs == [("a1b2c3d", True), ("main", False)]


def test_heads(con: duckdb.DuckDBPyConnection, world: tuple[scenario.Scenario, Path]) -> None:
    doc = metrics.heads_document(con, metrics.Filters())
    b = _base(doc, world)
    # reads: S1 head, S2 head + cat + grep, S4 Read, S7 sed = 6 (S6's replayed head not again)
    assert b["reads"] == 6
    assert b["by_method"] == {"head": 2, "cat": 1, "grep": 1, "read-tool": 1, "sed": 1}
    assert b["head_reads"] == 2 and b["head_20_60"] == 2
    assert b["prefix_reads"] == 3  # two heads and sed 1,60; the cat and the offset Read are not
    # blind: S2's head -40 on v2, S2's cut cat (rows 47-48 fell in the cut), S4's offset Read
    assert b["blind_reads"] == 3
    assert b["truncated_reads"] == 1  # S2's grep saw L-0001 of two rows
    assert b["sessions_reading_index"] == 4  # S1, S2, S4, S7
    assert b["blind_sessions"] == 1  # S4; S2's grep saw a row


def test_head_read_blind_on_v2_not_on_v1(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "select session_id, active_heading_line, active_rows_seen, is_blind from fct_index_reads"
        " where method = 'head' order by called_at"
    ).fetchall()
    assert rows == [(S1, 4, 2, False), (S2, 44, 0, True)]


def test_cut_cat_delivers_head_and_tail_parts(con: duckdb.DuckDBPyConnection) -> None:
    row = con.execute(
        "select line_from, line_to, tail_part_lines, range_source from fct_index_reads"
        " where method = 'cat'"
    ).fetchone()
    assert row == (1, 30, 4, "result")


def test_coverage(con: duckdb.DuckDBPyConnection, world: tuple[scenario.Scenario, Path]) -> None:
    b = _base(metrics.coverage_document(con, metrics.Filters()), world)
    assert b["sessions_in_scope"] == 6
    # recalled: S1 (body), S4 (body, after its miss still counts for coverage), S5 (subagent)
    assert b["sessions_recalled"] == 3
    assert b["coverage"] == 0.5
    assert b["sessions_reading_index"] == 4
    weeks = {w["week"]: (w["sessions_in_scope"], w["sessions_recalled"]) for w in b["by_week"]}
    assert weeks == {"2026-W45": (1, 1), "2026-W46": (5, 2)}


def test_hits(con: duckdb.DuckDBPyConnection, world: tuple[scenario.Scenario, Path]) -> None:
    b = _base(metrics.hits_document(con, metrics.Filters()), world)
    assert b["hits"] == 6  # the form-only line is not a hit
    assert b["by_recall"] == {"recalled": 2, "index_only": 1, "not_recalled": 1, "unknown": 2}
    assert b["by_caught"] == {"ci": 1, "gate": 3, "human": 2}
    assert b["top3_share"] == 1.0
    assert b["max_class"]["class"] == "verify-before-report"
    assert b["max_class"]["share"] == pytest.approx(5 / 6)
    disagreeing = sorted((d["lesson_id"], d["session_id"]) for d in b["disagreements"])
    assert disagreeing == [("L-0001", S2), ("L-0002", S5)]
    l1 = next(item for item in b["lessons"] if item["id"] == "L-0001")
    # independent: S1, S2, S3, S4 and the hit without a session
    assert (l1["hits"], l1["independent"], l1["recalled"], l1["unknown"]) == (5, 5, 1, 2)


def test_bodies(con: duckdb.DuckDBPyConnection, world: tuple[scenario.Scenario, Path]) -> None:
    built = world[0]
    doc = metrics.bodies_document(con, metrics.Filters(), T.chars_per_token, T.large_body_bytes)
    b = _base(doc, world)
    read1 = len(scenario.numbered(built.lesson1))
    read4 = len(scenario.numbered(built.lesson1, 1, "\t"))
    read5 = len(built.lesson2)
    assert len(built.lesson2.encode()) > 20480
    assert b["reads"] == 3
    assert b["tokens"] == math.ceil(read1 / 4) + math.ceil(read4 / 4) + math.ceil(read5 / 4)
    assert b["large_reads"] == 1
    assert b["large_tokens"] == math.ceil(read5 / 4)
    lessons = {item["id"]: item for item in b["lessons"]}
    assert lessons["L-0001"]["reads"] == 2
    assert lessons["L-0002"]["body_bytes"] == len(built.lesson2.encode())


def test_ritual_cost(con: duckdb.DuckDBPyConnection) -> None:
    doc = metrics.cost_document(con, metrics.Filters(), pattern="^make test", gap_cap_s=T.gap_cap_s)
    (r,) = doc["rituals"]
    assert (r["calls"], r["untimed_calls"]) == (3, 1)
    assert r["total_hours"] == pytest.approx(420 / 3600)  # 120 s + Codex's recorded 300 s
    assert r["weeks"] == 2
    assert r["hours_per_week"] == pytest.approx(420 / 3600 / 2)
    assert r["median_s"] == pytest.approx(210)
    assert r["p90_s"] == pytest.approx(282)
    assert r["by_week"] == [
        {"week": "2026-W46", "calls": 3, "hours": pytest.approx(420 / 3600), "partial": False}
    ]


def test_lesson_ritual(con: duckdb.DuckDBPyConnection) -> None:
    doc = metrics.cost_document(con, metrics.Filters(), lesson="L-0001", gap_cap_s=T.gap_cap_s)
    (r,) = doc["rituals"]
    assert r["lesson"] == "L-0001" and r["pattern"] == "^make test" and r["calls"] == 3


@pytest.mark.parametrize(
    ("lesson", "session", "before", "status"),
    [
        ("L-0001", S1, "2026-11-03T10:30:00Z", "recalled"),
        ("L-0001", S1, "2026-11-03T10:04:00Z", "index_only"),
        ("L-0001", S2, None, "index_only"),
        ("L-0001", S4, "2026-11-11T11:00:00Z", "not_recalled"),
        ("L-0001", S4, None, "recalled"),
        ("L-0002", S5, "2026-11-12T10:40:00Z", "recalled"),
        ("L-0001", scenario.S3, None, "unknown"),
    ],
)
def test_recalled(
    con: duckdb.DuckDBPyConnection, lesson: str, session: str, before: str | None, status: str
) -> None:
    doc = metrics.recalled_document(
        con, lesson, session, metrics.parse_when(before), metrics.Filters()
    )
    assert doc["status"] == status


def _active_seconds(stamps: list[str], cap: float = 300) -> float:
    from datetime import datetime

    times = sorted(datetime.fromisoformat(s.replace("Z", "+00:00")) for s in stamps)
    return sum(min((b - a).total_seconds(), cap) for a, b in zip(times, times[1:], strict=False))


def test_share_of_active_time(
    con: duckdb.DuckDBPyConnection, world: tuple[scenario.Scenario, Path]
) -> None:
    s = world[0].sessions
    per_session = {
        "S1": [line["timestamp"] for line in s["S1"].lines],
        "S2": [line["timestamp"] for line in s["S2"].lines],
        "S4": [line["timestamp"] for line in s["S4"].lines],
        "S5": [line["timestamp"] for line in s["S5"].lines + s["S5-agent"].lines],
        "S6": [line["timestamp"] for line in s["S6"].lines],  # its replayed lines are S1's
        "S7": [line["timestamp"] for line in s["S7"].lines],
    }
    active = sum(_active_seconds(stamps) for stamps in per_session.values())
    doc = metrics.cost_document(con, metrics.Filters(), pattern="^make test", gap_cap_s=300)
    (r,) = doc["rituals"]
    # inside the calls: S5's 10:50 -> 10:52 gap (120 s) and S7's 09:10:00 -> 09:10:10 (10 s,
    # though Codex recorded 300 s, which total_hours keeps: 120 + 300 = 420 s)
    assert r["total_hours"] == pytest.approx(420 / 3600)
    assert r["share_of_active_time"] == pytest.approx(130 / active)
    stored = con.execute("select sum(active_seconds) from fct_sessions").fetchall()[0][0]
    assert stored == pytest.approx(active)


def test_share_of_active_time_with_another_gap_cap(
    con: duckdb.DuckDBPyConnection, world: tuple[scenario.Scenario, Path]
) -> None:
    s = world[0].sessions
    stamps = [
        [line["timestamp"] for line in s["S1"].lines],
        [line["timestamp"] for line in s["S2"].lines],
        [line["timestamp"] for line in s["S4"].lines],
        [line["timestamp"] for line in s["S5"].lines + s["S5-agent"].lines],
        [line["timestamp"] for line in s["S6"].lines],
        [line["timestamp"] for line in s["S7"].lines],
    ]
    active = sum(_active_seconds(one, cap=60) for one in stamps)
    (r,) = metrics.cost_document(con, metrics.Filters(), pattern="^make test", gap_cap_s=60)[
        "rituals"
    ]
    # S5's 120 s gap capped at 60, S7's 10 s gap
    assert r["share_of_active_time"] == pytest.approx(70 / active)
    # a cap below the call durations: the share once reached 2.4 with --gap-cap 10
    active_10 = sum(_active_seconds(one, cap=10) for one in stamps)
    (r,) = metrics.cost_document(con, metrics.Filters(), pattern="^make test", gap_cap_s=10)[
        "rituals"
    ]
    assert r["share_of_active_time"] == pytest.approx(20 / active_10)
    assert r["share_of_active_time"] <= 1


def test_ritual_sums_are_exactly_rounded_whatever_the_order() -> None:
    import random

    # 0.1 s a thousand times and one long call: a running sum of doubles drifts in the
    # last digits, and by how much depends on the order the rows arrive in
    durations = [0.1] * 1000 + [3600.123]
    assert sum(durations) != 3700.123
    orders = [list(durations), sorted(durations), sorted(durations, reverse=True)]
    random.Random(7).shuffle(orders[0])
    assert {metrics.exact_sum(order) for order in orders} == {3700.123}
    assert metrics.exact_sum([]) == 0.0


def test_linear_quantile_is_polars_linear_quantile() -> None:
    import random

    import polars as pl

    rng = random.Random(3)
    for _ in range(300):
        values = [rng.choice([rng.random() * 900, round(rng.random() * 360, 3), 7.0])
                  for _ in range(rng.randint(1, 300))]  # fmt: skip
        for q in (0.0, 0.1, 0.5, 0.9, 0.99, 1.0):
            expected = pl.Series(values, dtype=pl.Float64).quantile(q, interpolation="linear")
            assert metrics.linear_quantile(sorted(values), q) == expected
    assert metrics.linear_quantile([], 0.5) is None
    assert metrics.linear_quantile([120.0, 300.0], 0.5) == 210.0
