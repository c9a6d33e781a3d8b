"""``effect`` on the hand-worked scenario of ``effect_scenario.py`` (read its docstring)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl
import pytest
from click.testing import CliRunner
from scipy.stats import fisher_exact

from lessons_analytics import metrics, warehouse
from lessons_analytics.cli import cli
from lessons_analytics.effect import (
    VERDICTS,
    effect_document,
    interventions,
    lesson_effects,
    lesson_weeks,
)
from lessons_analytics.ingestion import ingest
from lessons_analytics.interventions import intervention_windows
from lessons_analytics.metrics import Filters
from lessons_analytics.redact import CleanJson, encode_json, redact_json
from lessons_analytics.settings import Thresholds
from tests.support import effect_scenario as es
from tests.support.demo_warehouse import demo_warehouse

THRESHOLDS = Thresholds()  # the defaults


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[es.EffectScenario, Path]:
    root = tmp_path_factory.mktemp("effect")
    built = es.build(root)
    db = root / "w.duckdb"
    report = ingest(db, [built.projects])
    assert report.document()["load_errors"] == 0, report.document()["errors"]
    return built, db


@pytest.fixture()
def con(world: tuple[es.EffectScenario, Path]) -> duckdb.DuckDBPyConnection:
    connection = warehouse.connect(world[1], read_only=True)
    yield connection
    connection.close()


@pytest.fixture()
def effects(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    rows = lesson_effects(con, Filters(), Thresholds()).to_dicts()
    return {row["lesson_id"]: row for row in rows}


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def test_versions_keep_every_status(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "select version_seq, status from stg_lesson_versions where lesson_id = 'L-0001'"
        " order by version_seq"
    ).fetchall()
    # C0 candidate, C1 active, J adds the journal (C2 and H leave the file as it was)
    assert rows == [(0, "candidate"), (1, "active"), (2, "active")]


def test_activation_dates(effects: dict[str, dict[str, Any]]) -> None:
    assert effects["L-0001"]["activated_at"] == _at(es.C1)
    assert effects["L-0004"]["activated_at"] == _at(es.C2)
    assert effects["L-0005"]["activated_at"] == _at(es.C0)
    assert all(row["activation_source"] == "git" for row in effects.values())
    assert all(row["deactivated_at"] is None for row in effects.values())


COUNTS = {  # lesson: (exposed_before, hits_before, exposed_after, hits_after)
    "L-0001": (40, 20, 40, 4),
    "L-0002": (40, 20, 40, 20),
    "L-0003": (40, 20, 40, 16),
    "L-0004": (75, 15, 5, 0),
    "L-0005": (0, 0, 80, 0),
}


@pytest.mark.parametrize("lesson", sorted(COUNTS))
def test_counts(effects: dict[str, dict[str, Any]], lesson: str) -> None:
    row = effects[lesson]
    got = (row["exposed_before"], row["hits_before"], row["exposed_after"], row["hits_after"])
    assert got == COUNTS[lesson]


def test_verdicts(effects: dict[str, dict[str, Any]]) -> None:
    verdicts = {lid: row["verdict"] for lid, row in effects.items()}
    assert verdicts == {
        "L-0001": "helps",
        "L-0002": "not surfaced",
        "L-0003": "not holding",
        "L-0004": "insufficient evidence",
        "L-0005": "retire candidate",
    }
    assert set(verdicts.values()) <= set(VERDICTS)


def test_helps_statistics(effects: dict[str, dict[str, Any]]) -> None:
    row = effects["L-0001"]
    assert row["rate_before"] == 0.5 and row["rate_after"] == 0.1
    assert row["diff"] == pytest.approx(-0.4)
    assert row["diff_hi"] < 0 < row["diff"] - row["diff_lo"]
    # independent: scipy's one-sided Fisher on [[after hits, misses], [before hits, misses]]
    _, p = fisher_exact([[4, 36], [20, 20]], alternative="less")
    assert row["p_value"] == pytest.approx(p)
    assert row["sessions_needed"] == 23 and row["sessions_still_needed"] == 0


def test_not_holding_recall_split(effects: dict[str, dict[str, Any]]) -> None:
    row = effects["L-0003"]
    split = (row["recalled_sessions"], row["recalled_hits"],
             row["unrecalled_sessions"], row["unrecalled_hits"])  # fmt: skip
    assert split == (10, 8, 30, 8)
    assert row["recall_diff"] == pytest.approx(0.8 - 8 / 30)
    _, p = fisher_exact([[8, 2], [8, 22]], alternative="less")
    assert row["recall_p_value"] == pytest.approx(p)
    _, p_fall = fisher_exact([[16, 24], [20, 20]], alternative="less")
    assert row["p_value"] == pytest.approx(p_fall) and p_fall > 0.05


def test_not_surfaced_split(effects: dict[str, dict[str, Any]]) -> None:
    row = effects["L-0002"]
    assert (row["recalled_sessions"], row["unrecalled_sessions"], row["unrecalled_hits"]) == (
        0,
        40,
        20,
    )


def test_insufficient_evidence_says_how_many_more(effects: dict[str, dict[str, Any]]) -> None:
    row = effects["L-0004"]
    assert row["rate_before"] == 0.2
    assert row["sessions_needed"] == 77 and row["sessions_still_needed"] == 72
    assert "72 more" in row["verdict_reason"]


def test_retire_window(effects: dict[str, dict[str, Any]]) -> None:
    row = effects["L-0005"]
    assert (row["window_sessions"], row["window_hits"]) == (80, 0)


def test_interventions_group_close_changes(con: duckdb.DuckDBPyConnection) -> None:
    rows = interventions(con, Filters(), Thresholds()).to_dicts()
    by_time = [(r["committed_at"], r["kinds"], r["group_id"], r["confounded"]) for r in rows]
    assert by_time == [
        (_at(es.C0), ["promote", "prompt"], 1, False),  # L-0005 born active, hook added
        (_at(es.C1), ["promote"], 2, True),
        (_at(es.H), ["prompt"], 2, True),  # 5 sessions after C1 < 20
        (_at(es.C2), ["promote"], 3, False),  # 30 sessions after H
    ]
    c1 = rows[1]
    # before: the 20 sessions before C1 (s20..s39); after: the 20 from H on (s45..s64)
    assert (c1["sessions_before"], c1["sessions_after"]) == (20, 20)
    # hit sessions: s20..s39 all hit L-0002; s45..s63 hit L-0002, s64 nothing
    assert (c1["hit_sessions_before"], c1["hit_sessions_after"]) == (20, 19)
    # coverage: L-0003's body reads in s40..s49, of which s45..s49 are in the after window
    assert (c1["recalled_before"], c1["recalled_after"]) == (0, 5)
    assert c1["coverage_after"] == 0.25 and c1["blind_share_after"] is None
    c2 = rows[3]
    assert (c2["sessions_before"], c2["sessions_after"]) == (20, 5)


def test_document_and_cli(world: tuple[es.EffectScenario, Path]) -> None:
    result = CliRunner().invoke(cli, ["--db", str(world[1]), "effect", "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.output)
    assert doc["schema"] == "lessons-analytics/effect/1"
    (entry,) = doc["bases"]
    assert entry["base"] == str(world[0].base.resolve())
    assert entry["by_verdict"]["helps"] == 1 and doc["totals"]["lessons"] == 5
    assert len(entry["interventions"]) == 4
    table = CliRunner().invoke(cli, ["--db", str(world[1]), "effect"])
    assert table.exit_code == 0 and "not holding" in table.output


def test_the_tables_read_no_evidence(
    world: tuple[es.EffectScenario, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the text output shows no evidence row: `effect` without --json does not ask for them
    asked: list[str] = []
    for name in ("query_rows", "query_json"):
        read = getattr(metrics, name)

        def recording(con: Any, query: str, *args: Any, _read: Any = read, **kw: Any) -> Any:
            asked.append(query)
            return _read(con, query, *args, **kw)

        monkeypatch.setattr(metrics, name, recording)
    table = CliRunner().invoke(cli, ["--db", str(world[1]), "effect"])
    assert table.exit_code == 0 and "not holding" in table.output
    assert "effect_lessons" in asked and "effect_evidence" not in asked
    asked.clear()
    assert CliRunner().invoke(cli, ["--db", str(world[1]), "effect", "--json"]).exit_code == 0
    assert "effect_evidence" in asked


def test_base_filter(con: duckdb.DuckDBPyConnection) -> None:
    doc = effect_document(con, Filters(("/nowhere/LESSONS",)), Thresholds())
    assert doc["bases"] == [] and doc["totals"]["lessons"] == 0


def test_missing_warehouse_is_a_clean_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.duckdb"), "effect"])
    assert result.exit_code == 1


def test_stats_sign_helped_disagrees(world: tuple[es.EffectScenario, Path]) -> None:
    # L-0001 says helped: false but helps; L-0003 says helped: true but does not hold;
    # L-0002/L-0004/L-0005 say null: no contradiction
    result = CliRunner().invoke(cli, ["--db", str(world[1]), "stats", str(world[0].base), "--json"])
    assert result.exit_code == 0, result.output
    (entry,) = orjson.loads(result.output)["bases"]
    (sign,) = [s for s in entry["signs"] if s["name"] == "helped-disagrees"]
    assert sign == {"name": "helped-disagrees", "value": 2, "threshold": None, "fired": True,
                    "lessons": ["L-0001", "L-0003"]}  # fmt: skip


REAL = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "real"


@pytest.mark.real
@pytest.mark.skipif(not REAL.is_dir(), reason="real corpus not present")
def test_real_warehouse_without_bases_is_an_empty_answer(tmp_path: Path) -> None:
    db = tmp_path / "real.duckdb"
    ingest(db, [REAL])
    # independent count: no LESSONS/ folder stands above any working directory of the corpus
    cwds = {
        json_line["cwd"]
        for path in REAL.rglob("*.jsonl")
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.strip().startswith("{") and '"cwd"' in line
        for json_line in [_loads(line)]
        if isinstance(json_line, dict) and isinstance(json_line.get("cwd"), str)
    }
    folders = {parent for c in cwds for parent in [Path(c), *Path(c).parents]}
    assert cwds and not any((folder / "LESSONS").is_dir() for folder in folders)
    result = CliRunner().invoke(cli, ["--db", str(db), "effect", "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert doc["bases"] == []
    assert result.stderr.startswith("no lesson base in the warehouse: ")
    assert doc["totals"] == {"lessons": 0, "interventions": 0,
                             "by_verdict": dict.fromkeys(VERDICTS, 0)}  # fmt: skip


def _loads(line: str) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


DEMO_ATLAS = {  # lesson: (verdict, hits_before, exposed_before, hits_after, exposed_after)
    "L-0001": ("not holding", 0, 0, 10, 105),
    "L-0002": ("retire candidate", 0, 0, 0, 105),
    "L-0003": ("not holding", 0, 0, 3, 105),
    "L-0004": ("not surfaced", 0, 0, 4, 105),
    "L-0005": ("insufficient evidence", 1, 26, 1, 79),
    "L-0006": ("helps", 16, 38, 1, 67),
    "L-0012": ("costs more than it saves", 1, 65, 1, 40),
}

# base: (date, kinds, sessions before, sessions after) of the changes that stand alone with
# sessions before them (the imports stand alone too, with none before them).
DEMO_CLEAN_CHANGES = {
    "atlas/LESSONS": [("2026-11-25", ["layout"], 20, 13)],  # the re-layout
    "harbor/LESSONS": [("2026-11-24", ["layout"], 20, 12)],  # the week-8 review's notes
    "harbor/services/api/LESSONS": [
        ("2026-11-03", ["retire"], 20, 20),  # L-0206 retired
        ("2026-11-24", ["layout"], 20, 4),
    ],
}
DEMO_CONFOUNDED_GROUPS = 5  # atlas 2, harbor 2, api 1 (each import joins its first review)


def test_demo_shows_every_verdict(tmp_path: Path) -> None:
    _, db = demo_warehouse(tmp_path)
    con = warehouse.connect(db, read_only=True)
    try:
        rows = lesson_effects(con, Filters(), Thresholds()).to_dicts()
        frame, sessions = intervention_windows(con, Filters(), Thresholds())
        changes = frame.to_dicts()
    finally:
        con.close()
    atlas = {r["lesson_id"]: r for r in rows if r["base_root"].endswith("/atlas/LESSONS")}
    got = {
        lid: (r["verdict"], r["hits_before"], r["exposed_before"], r["hits_after"],
              r["exposed_after"])
        for lid, r in atlas.items() if lid in DEMO_ATLAS
    }  # fmt: skip
    assert got == DEMO_ATLAS
    assert {r["verdict"] for r in atlas.values()} == set(VERDICTS)
    # Notes reach INDEX.md at reviews, so every base has a change standing alone with a
    # full window of sessions before it, and the reviews' packages stay confounded.
    by_base: dict[str, list[dict[str, Any]]] = {}
    for row in changes:
        by_base.setdefault(row["base_root"].split("/repos/")[1], []).append(row)
    assert sorted(by_base) == ["atlas/LESSONS", "harbor/LESSONS", "harbor/services/api/LESSONS"]
    clean = {
        base: [
            (str(r["committed_at"])[:10], r["kinds"], r["sessions_before"], r["sessions_after"])
            for r in rows if not r["confounded"] and r["sessions_before"]
        ]
        for base, rows in by_base.items()
    }  # fmt: skip
    assert clean == DEMO_CLEAN_CHANGES
    assert sum(1 for r in changes if r["confounded"]) >= 2
    confounded = {(r["base_root"], r["group_id"]) for r in changes if r["confounded"]}
    assert len(confounded) == DEMO_CONFOUNDED_GROUPS
    # The report's evidence lists (the window sessions) make each change's counts.
    for r in changes:
        mine = sessions.filter(
            (pl.col("base_path") == r["base_root"]) & (pl.col("group_id") == r["group_id"])
        )
        for side in ("before", "after"):
            part = mine.filter(pl.col("side") == side)
            got_counts = (part.height, int(part["is_recalled"].sum()),
                          int(part["is_reading_index"].sum()), int(part["is_blind"].sum()),
                          int(part["is_hit"].sum()))  # fmt: skip
            want = tuple(r[f"{k}_{side}"] for k in ("sessions", "recalled", "reading_index",
                                                     "blind", "hit_sessions"))  # fmt: skip
            assert got_counts == want, (r["base_root"], r["group_id"], side)


def test_evidence_rows_make_the_counts(con: duckdb.DuckDBPyConnection) -> None:
    from lessons_analytics.effect import effect_evidence

    rows = effect_evidence(con, Filters()).to_dicts()
    l3 = [r for r in rows if r["lesson_id"] == "L-0003" and r["period"] == "after"]
    assert sum(r["is_hit"] and r["is_recalled"] for r in l3) == 8  # recalled_hits
    assert sum(r["is_recalled"] for r in l3) == 10  # recalled_sessions
    assert sum(r["is_hit"] and not r["is_recalled"] for r in l3) == 8  # unrecalled_hits
    first = next(r for r in l3 if r["session_id"] == es.sid(40))
    # s40: the body Read is the prompt (line 1) then the call (line 2); the hit is the
    # journal's line for s40 (after the 20 before-activation lines)
    assert first["recall_line"] == 2 and first["transcript_file"].endswith(f"{es.sid(40)}.jsonl")
    assert first["journal_file"].endswith("L-0003.md")
    l1_before = [r for r in rows if r["lesson_id"] == "L-0001" and r["period"] == "before"]
    assert len(l1_before) == 20 and all(r["is_hit"] for r in l1_before)


def test_the_reports_hit_sessions_are_the_evidence_rows_with_a_hit(
    con: duckdb.DuckDBPyConnection,
) -> None:
    # the report's proofs ask the query for the sessions with a hit alone (hits_only):
    # the evidence's rows with a hit, in its order. L-0003 after activation: 8 recalled and
    # 8 unrecalled hits; its 2 recalled sessions without a hit are not among them
    from lessons_analytics.effect import effect_evidence
    from lessons_analytics.report.effect_section import effect_hits

    every = effect_evidence(con, Filters()).to_dicts()
    hits = effect_evidence(con, Filters(), hits_only=True).to_dicts()
    assert hits == [r for r in every if r["is_hit"]]
    l3 = [r for r in hits if r["lesson_id"] == "L-0003" and r["period"] == "after"]
    assert len(l3) == 16 and sum(r["is_recalled"] for r in l3) == 8
    assert len(every) > len(hits)
    until = _at(es.C1)
    for base in {r["base_root"] for r in every}:
        window = effect_evidence(con, Filters((base,), None, until)).to_dicts()
        assert effect_hits(con, base, until).to_dicts() == [r for r in window if r["is_hit"]]


def _row(**over: Any) -> dict[str, Any]:
    """A lesson row as lesson_effects hands it to the verdict rule."""
    row: dict[str, Any] = {
        "status": "active", "activated_at": _at(es.C1), "exposed_before": 40,
        "hits_before": 20, "exposed_after": 40, "hits_after": 20, "rate_before": 0.5,
        "rate_after": 0.5, "diff": 0.0, "diff_lo": -0.2, "diff_hi": 0.2, "p_value": 0.6,
        "sessions_needed": 23, "sessions_still_needed": 0, "recalled_sessions": 0,
        "recalled_hits": 0, "unrecalled_sessions": 40, "unrecalled_hits": 20,
        "recall_p_value": None, "cost_hours_per_week": 0.0, "cost_tokens_per_week": 0.0,
        "avoided_hits_per_week_max": 0.2 * 40 / 4, "window_sessions": 40, "window_hits": 20,
    }  # fmt: skip
    return {**row, **over}


def test_verdict_costs_more_than_it_saves() -> None:
    from lessons_analytics.effect import verdict

    # at most 2 hits a week avoided, worth 2 * 0.5 h: a 1.5 h ritual costs more
    word, reason = verdict(_row(cost_hours_per_week=1.5), THRESHOLDS)
    assert word == "costs more than it saves" and "1.5 h a week" in reason
    assert verdict(_row(cost_hours_per_week=0.9), THRESHOLDS)[0] == "not surfaced"
    # 2 hits * 100 000 tokens: 250 000 body tokens a week cost more
    assert verdict(_row(cost_tokens_per_week=250_000), THRESHOLDS)[0] == (
        "costs more than it saves"
    )
    # without a before period nothing is credited, so no cost verdict
    no_before = _row(cost_hours_per_week=5.0, avoided_hits_per_week_max=None)
    assert verdict(no_before, THRESHOLDS)[0] == "not surfaced"


def test_verdict_needs_the_sessions_the_test_needs() -> None:
    from lessons_analytics.effect import verdict

    # 20 of 23 sessions: even with 10 unrecalled hits, no diagnosis yet
    few = _row(exposed_after=20, hits_after=10, unrecalled_hits=10, sessions_still_needed=3)
    word, reason = verdict(few, THRESHOLDS)
    assert word == "insufficient evidence" and "3 more" in reason


def test_deleted_lesson_and_prompt_files(tmp_path: Path) -> None:
    from tests.support.basebuilder import index_text, lesson_text, make_base

    project = tmp_path / "p"
    base = make_base(
        project,
        lessons={"L-0001.md": lesson_text("L-0001"),
                 "L-0002-hook-order.md": lesson_text("L-0002", status="candidate")},
        index=index_text(active=["L-0001"], candidates=["L-0002"]),
        when="2026-10-01T09:00:00Z",
        commits=[
            ("2026-10-02T09:00:00Z", {"agents/lesson-scout.md": "find the lessons\n"}),
            ("2026-10-03T09:00:00Z", {"LESSONS/L-0001.md": None}),
            ("2026-10-04T09:00:00Z", {"src/hooks.py": "x = 1\n", "src/main.py": "y = 2\n"}),
            ("2026-10-05T09:00:00Z", {"LESSONS/L-0002-hook-order.md":
                                      lesson_text("L-0002", status="active")}),
        ],
    )  # fmt: skip
    db = tmp_path / "w.duckdb"
    ingest(db, [], [base])
    con = warehouse.connect(db, read_only=True)
    try:
        changes = con.execute(
            "select committed_at::date::varchar, kind, detail from fct_base_changes"
            " order by committed_at, kind, detail"
        ).fetchall()
        ends = con.execute(
            "select lesson_id, activated_at::date::varchar, deactivated_at::date::varchar"
            " from dim_lesson_activations order by lesson_id"
        ).fetchall()
    finally:
        con.close()
    root = str(project.resolve())
    assert changes == [
        ("2026-10-01", "promote", "L-0001"),  # born active
        ("2026-10-02", "prompt", f"{root}/agents/lesson-scout.md"),
        ("2026-10-03", "retire", "L-0001"),  # its file deleted
        ("2026-10-04", "prompt", f"{root}/src/hooks.py"),  # not src/main.py
        ("2026-10-05", "promote", "L-0002"),  # "hook" in a lesson's name is not a prompt
    ]
    # L-0001 is gone from the files now, so it has no row; L-0002 is active since 10-05
    assert ends == [("L-0002", "2026-10-05", None)]


def test_weekly_exposure_of_a_lesson(con: duckdb.DuckDBPyConnection) -> None:
    # s_i starts 2026-10-01T10:00Z + 6 h * i (a Thursday of ISO week 40): W40 holds s0..s14
    # (until Oct 5 00:00, 86 h), W41 s15..s42 (254 h), W42 s43..s70 (422 h), W43 s71..s79.
    # L-0001 turns active at s40 and fails in s0..s19 and s40..s43.
    rows = lesson_weeks(con, Filters()).filter(pl.col("lesson_id") == "L-0001")
    got = [(r["week"], r["period"], r["exposed_sessions"], r["hits"]) for r in rows.to_dicts()]
    assert got == [
        ("2026-W40", "before", 15, 15),
        ("2026-W41", "after", 3, 3),
        ("2026-W41", "before", 25, 5),
        ("2026-W42", "after", 28, 1),
        ("2026-W43", "after", 9, 0),
    ]


def test_weeks_add_up_to_the_totals(
    con: duckdb.DuckDBPyConnection, effects: dict[str, dict[str, Any]]
) -> None:
    weeks = lesson_weeks(con, Filters())
    for lesson, row in effects.items():
        for period in ("before", "after"):
            mine = weeks.filter((pl.col("lesson_id") == lesson) & (pl.col("period") == period))
            assert (int(mine["exposed_sessions"].sum()), int(mine["hits"].sum())) == (
                row[f"exposed_{period}"],
                row[f"hits_{period}"],
            ), (lesson, period)


def test_costs_divide_by_the_weeks_of_the_base(con: duckdb.DuckDBPyConnection) -> None:
    # s0 starts Thu 2026-10-01 (ISO week 40), s79 at 2026-10-21T04:00 (week 43): 4 weeks;
    # from 2026-10-12 on (s44 onwards), weeks 42-43: 2
    weeks = metrics.query(con, "effect_cost_weeks", **Filters().params())
    assert weeks["weeks"].to_list() == [4]
    since = Filters(since=_at("2026-10-12T00:00:00Z"))
    assert metrics.query(con, "effect_cost_weeks", **since.params())["weeks"].to_list() == [2]
    # L-0003's 10 body reads (s40..s49), as `bodies` counts their tokens, over those weeks;
    # no lesson declares a ritual
    t = THRESHOLDS
    for filters, span in ((Filters(), 4), (since, 2)):
        bodies = metrics.query(
            con, "bodies_by_lesson", **filters.params(),
            divisor=t["chars_per_token"], large_bytes=t["large_body_bytes"],
        ).to_dicts()  # fmt: skip
        tokens = {row["lesson_id"]: row["tokens"] for row in bodies}
        assert set(tokens) == {"L-0003"} and tokens["L-0003"] > 0
        rows = {r["lesson_id"]: r for r in lesson_effects(con, filters, t).to_dicts()}
        assert rows["L-0003"]["cost_tokens_per_week"] == tokens["L-0003"] / span
        assert {r["cost_hours_per_week"] for r in rows.values()} == {0.0}
        assert {r["cost_tokens_per_week"] for k, r in rows.items() if k != "L-0003"} == {0.0}


def test_the_threads_cursors_read_in_utc(con: duckdb.DuckDBPyConnection) -> None:
    # effect_document reads its evidence and changes on cursors of their own threads; a
    # DuckDB cursor keeps the database's settings but not the session's time zone, and a
    # timestamp of another zone would print another offset in the --json document
    other = warehouse.cursor(con)
    try:
        (zone,) = other.execute("select current_setting('TimeZone')").fetchall()[0]
        assert zone == "UTC"
        (stamp,) = other.execute("select max(started_at) from fct_sessions").fetchall()[0]
        assert stamp.utcoffset() == timedelta(0)
    finally:
        other.close()


def test_evidence_as_text_encodes_as_the_rows(con: duckdb.DuckDBPyConnection) -> None:
    # `effect --json` has DuckDB write the evidence rows (metrics.query_json): the output
    # must be the bytes the rows give
    doc = effect_document(con, Filters(), THRESHOLDS, as_text=True)
    (entry,) = doc["bases"]
    assert isinstance(entry["evidence"], CleanJson)
    rows = effect_document(con, Filters(), THRESHOLDS)
    assert rows["bases"][0]["evidence"]
    text, plain = encode_json(doc), encode_json(rows)
    assert text.replace(doc["generated_at"].encode(), b"") == plain.replace(
        rows["generated_at"].encode(), b""
    )


# (value SQL, whether sql_json writes it): strings orjson escapes, non-ASCII and a secret
# redact changes are left to the rows; a needle redact leaves as it is is written
_VALUES = [
    ("'plain /path/to-it.jsonl'", True),
    ("'ACCA acca token -u: sk-'", True),
    ("'a \"quoted\" word'", False),
    ("'back\\slash'", False),
    ("'new' || chr(10) || 'line'", False),
    ("'tab' || chr(9)", False),
    ("'café'", False),
    ("'password=hunter2'", False),
    ("'curl -H ''Authorization: Bearer abcdefgh'''", False),
    ("null::varchar", True),
]
_OTHERS = (
    "timestamptz '2026-08-25 15:19:23.851+00' as at_ms, timestamptz '1969-12-31 23:59:59+00'"
    " as at_s, timestamptz '1960-01-01 00:00:00.000001+00' as at_us, null::timestamptz as at_null,"
    " true as yes, false as no, null::boolean as maybe, 42::bigint as n, -7::integer as m,"
    " null::bigint as none_"
)


def _sql_json_as_rows(sql: str) -> bool:
    """Whether ``sql_json`` writes the rows of ``sql`` (keyed by base_path, ordered by k);
    where it does, each base's text must encode as its rows do."""
    con = duckdb.connect()
    con.execute("set TimeZone = 'UTC'")
    found = metrics.sql_json(con, sql, {}, 3, ("base_path", "k"))
    if found is None:
        return False
    rows: dict[str, list[dict[str, Any]]] = {}
    for row in metrics._fetch(con, sql, {}):
        rows.setdefault(row.pop("base_path"), []).append(row)
    assert set(found) == set(rows)
    for base, listed in rows.items():
        doc = {"bases": [{"base": base, "evidence": listed, "after": 1}]}
        text = {"bases": [{"base": base, "evidence": found[base], "after": 1}]}
        assert encode_json(text) == encode_json(doc)
    return True


@pytest.mark.parametrize(("value", "written"), _VALUES)
def test_sql_json_writes_what_orjson_writes(value: str, written: bool) -> None:
    sql = (
        f"select base_path, k, {value} as s, {_OTHERS}"
        " from (values ('b1', 2), ('b1', 1), ('b2', 3)) as t(base_path, k) order by base_path, k"
    )
    assert _sql_json_as_rows(sql) == written


# (two strings of a row, whether sql_json writes them): each is tested in a join of the row's
# strings; each string must still count by itself, whatever its neighbour holds
_PAIRS = [
    ("'plain'", "'also plain'", True),
    ("'plain'", "'a \"quoted\" word'", False),
    ("'café'", "null::varchar", False),
    ("null::varchar", "'password=hunter2'", False),
    ("'pass'", "'word=hunter2'", True),  # no secret in either; a needle across the two
    ("null::varchar", "null::varchar", True),
]


@pytest.mark.parametrize(("first", "second", "written"), _PAIRS)
def test_sql_json_tests_each_string_of_a_row(first: str, second: str, written: bool) -> None:
    sql = (
        f"select base_path, k, {first} as s, {second} as t"
        " from (values ('b1', 2), ('b1', 1)) as v(base_path, k) order by base_path, k"
    )
    assert _sql_json_as_rows(sql) == written


def test_unordered_drops_only_an_order_by_of_the_given_columns() -> None:
    order = ("base_path", "k")
    assert metrics._unordered("select * from t\norder by\n    t.base_path, t.k\n", order) == (
        "select * from t\n"
    )
    for kept in (
        "select * from t order by base_path, k desc",
        "select * from t order by k, base_path",
        "select * from t order by base_path, k limit 3",
        "select * from t order by base_path, k -- newest first",
        "select * from (select * from t order by base_path, k) as s where k > 1",
    ):
        assert metrics._unordered(kept, order) == kept


def test_encode_json_redacts_as_before() -> None:
    doc = {"a": ["password=hunter2", {"k": 1.5, "t": datetime(2026, 1, 2, tzinfo=UTC)}], 3: None}
    old = orjson.dumps(
        redact_json(orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS)),
        option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS,
    )
    assert encode_json(doc) == old and b"hunter2" not in old
    clean = {"a": [1, "x"], "b": CleanJson(b'[\n    "sk-"\n  ]')}
    assert encode_json(clean) == b'{\n  "a": [\n    1,\n    "x"\n  ],\n  "b": [\n    "sk-"\n  ]\n}'
