"""The report asks some questions ahead (``metrics.ahead``): on a cursor of its own
thread, for the memo to take when they are asked. Who runs a question changes, never
which questions run, how often, or their answers."""

from __future__ import annotations

import shutil
import threading
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lessons_analytics import metrics, warehouse
from lessons_analytics.report.data import BY_TIME, PER_BASE, build_report_data
from lessons_analytics.settings import Thresholds
from tests.support.demo_warehouse import demo_warehouse

WEEK = (datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC))
PATTERN = "^git commit"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _, db = demo_warehouse(tmp_path_factory.mktemp("ahead"))
    return db


@pytest.fixture(scope="module")
def con(db: Path) -> duckdb.DuckDBPyConnection:
    return warehouse.connect(db, read_only=True)


@pytest.fixture(scope="module")
def writer(db: Path, tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    # a copy: one process opens a file with one access mode
    copy = tmp_path_factory.mktemp("writer") / "warehouse.duckdb"
    shutil.copyfile(db, copy)
    return warehouse.connect(copy)


Run = tuple[metrics._Key, bool]  # the question, and whether it ran on the asker's connection


def _count_runs(monkeypatch: pytest.MonkeyPatch, asker: duckdb.DuckDBPyConnection) -> list[Run]:
    runs: list[Run] = []
    real = metrics._run

    def counted(c: duckdb.DuckDBPyConnection, sql: str, bound: dict[str, Any]) -> Any:
        runs.append((metrics._key(sql, bound), c is asker))
        return real(c, sql, bound)

    monkeypatch.setattr(metrics, "_run", counted)
    return runs


def _memo() -> metrics._Memo:
    memo = metrics._MEMO.get()
    assert memo is not None
    return memo


def test_a_question_asked_ahead_is_taken_not_run_again(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    since, until = WEEK
    alone = metrics.query(con, "heads", since=since, until=until)
    runs = _count_runs(monkeypatch, con)
    with metrics.remembering(con):
        metrics.ahead(con, "heads", since=since, until=until)
        assert len(_memo().fetching) == 1
        asked = metrics.query(con, "heads", since=since, until=until)
        assert not _memo().fetching
    assert asked.rows() == alone.rows() and alone.height
    assert [on_asker for _, on_asker in runs] == [False]  # once, on the other cursor


def test_a_by_time_question_is_asked_ahead_for_all_time(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    since, until = WEEK
    alone = metrics.query(con, "cost_calls", since=since, until=until, pattern=PATTERN)
    runs = _count_runs(monkeypatch, con)
    with metrics.remembering(con), metrics.by_time(con, BY_TIME):
        metrics.ahead(con, "cost_calls", since=since, until=until, pattern=PATTERN)
        [(sql, bound)] = _memo().fetching
        assert dict(bound)["since"] is None and dict(bound)["until"] is None
        asked = metrics.query(con, "cost_calls", since=since, until=until, pattern=PATTERN)
    assert asked.rows() == alone.rows() and alone.height
    assert [on_asker for _, on_asker in runs] == [False]


def test_nothing_is_asked_ahead_on_a_writer_or_outside_the_memo(
    con: duckdb.DuckDBPyConnection,
    writer: duckdb.DuckDBPyConnection,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a writer's cursor would not see what its open transaction wrote
    before = set(threading.enumerate())
    with metrics.remembering(writer):
        metrics.ahead(writer, "heads")
        metrics.cost_ahead(writer, metrics.Filters(), gap_cap_s=300.0)
        assert not _memo().fetching and not _started(before)
    metrics.ahead(con, "heads")
    metrics.cost_ahead(con, metrics.Filters(), gap_cap_s=300.0)
    assert not _started(before)


def _started(before: set[threading.Thread]) -> set[threading.Thread]:
    """The threads running now that were not running ``before`` (one that ends meanwhile,
    another test's, changes nothing)."""
    return set(threading.enumerate()) - before


def test_a_question_asked_ahead_and_never_asked_is_let_go(
    con: duckdb.DuckDBPyConnection,
) -> None:
    before = set(threading.enumerate())
    with metrics.remembering(con):
        metrics.ahead(con, "effect_lessons")
        assert len(_started(before)) == 1
    assert not _started(before)


def test_the_costs_asked_ahead_are_the_costs(
    con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    bases = [r["base_path"] for r in metrics.query_rows(con, "bases")]
    filters = [metrics.Filters((b,), *WEEK) for b in bases] + [metrics.Filters((bases[0],))]
    alone = [metrics.cost_document(con, f, gap_cap_s=300.0)["rituals"] for f in filters]
    assert any(r["calls"] for rituals in alone for r in rituals)
    runs = _count_runs(monkeypatch, con)
    with metrics.remembering(con), metrics.per_base(con, bases, PER_BASE):
        for f in filters:
            metrics.cost_ahead(con, f, gap_cap_s=300.0)
        ahead = [metrics.cost_document(con, f, gap_cap_s=300.0)["rituals"] for f in filters]
        assert not _memo().fetching  # each question asked ahead was asked
    for got, want in zip(ahead, alone, strict=True):
        assert [{**r, "generated_at": None} for r in got] == [
            {**r, "generated_at": None} for r in want
        ]
    # the rituals' questions ran on the other cursor; only lesson_rituals on the asker's
    asked_here = {key[0] for key, on_asker in runs if on_asker}
    assert asked_here == {metrics.sqlfiles.load("lesson_rituals")}
    assert sum(not on_asker for _, on_asker in runs) >= 2 * len(bases)


def _report(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    return build_report_data(
        con,
        "2026-W48",
        as_of=date(2026, 11, 30),
        thresholds=Thresholds(),
        generated_at=datetime(2026, 11, 30, tzinfo=UTC),
    )


def test_the_report_asks_ahead_only_what_it_asks(
    con: duckdb.DuckDBPyConnection,
    writer: duckdb.DuckDBPyConnection,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the writer asks nothing ahead (and its aside on the caller's thread): the same
    # questions, each once, and the same report
    runs = _count_runs(monkeypatch, con)
    with metrics.remembering(writer):
        plain = _report(writer)
    asked = Counter(key for key, _ in runs)
    runs.clear()
    with metrics.remembering(con):
        data = _report(con)
    ahead = Counter(key for key, _ in runs)
    assert data == plain
    assert ahead == asked and max(asked.values()) == 1
    # the rituals' questions ran ahead: cost_scope, the grouped calls, cost_calls
    elsewhere = [key[0] for key, on_asker in runs if not on_asker]
    for name in ("cost_scope", "cost_calls"):
        assert metrics.sqlfiles.load(name) in elsewhere, name
    assert any("ritual_calls as materialized" in sql for sql in elsewhere)
