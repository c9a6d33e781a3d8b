"""``stats``: every sleep sign of metrics.md §6 at its threshold and one below, sleep_due,
the transcript signs from a real warehouse, ``--mark`` byte-exactness and ``--json``.

Every base is a real git repository built in ``tmp_path``; ages are measured at
``AS_OF`` = 2026-11-30 unless a test says otherwise. Expected values are worked out by
hand in the comments next to them.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from lessons_analytics import warehouse
from lessons_analytics.cli import cli
from lessons_analytics.ingestion import ingest
from lessons_analytics.settings import Thresholds
from lessons_analytics.signs import (
    BaseStats,
    Sign,
    apply_marker,
    base_stats,
    marker_line,
    warehouse_stats,
)
from tests.support.basebuilder import index_text, lesson_text, make_base

AS_OF = date(2026, 11, 30)
SIGN_NAMES = [
    "candidate-needs-verdict",
    "candidates-without-verdict",
    "stale-candidate",
    "class-share",
    "active-without-hit",
    "active-unconfirmed",
    "fat-body",
    "journal-share",
    "recalled-but-failed",
    "never-recalled",
    "costly-ritual",
    "costly-body",
    "helped-disagrees",
    "index-layout",
]
TRANSCRIPT_SIGNS = ["recalled-but-failed", "never-recalled", "costly-ritual", "costly-body",
                    "helped-disagrees"]  # fmt: skip
ABSENT = object()


# ---------------------------------------------------------------- helpers


def hit(
    day: str,
    *,
    session: str | None = None,
    ts: str | None = None,
    defect: str = "bug",
    recalled: str = "unknown",
) -> str:
    parts = [
        f"- {day}",
        "where: src/app.py",
        "what: state reported unchecked",
        "caught: gate",
        f"recalled: {recalled}",
        f"defect: {defect}",
    ]
    if session:
        parts.append(f"session: {session}")
    if ts:
        parts.append(f"ts: {ts}")
    return " · ".join(parts)


def lesson(
    lesson_id: str,
    *,
    status: str = "active",
    cls: str | None = "verify-before-report",
    hits: Iterable[str] = (),
    created: str | None = None,
    helped: Any = ABSENT,
    ritual: str | None = None,
) -> str:
    extra = []
    if created:
        extra.append(f"created: {created}")
    if ritual:
        extra.append(f'ritual: "{ritual}"')
    if helped is not ABSENT:
        value = {True: "true", False: "false", None: "null"}[helped]
        extra += ["evidence:", f"  helped: {value}"]
    text = lesson_text(lesson_id, status=status, hits=hits, extra_fm="\n".join(extra))
    class_line = "class: verify-before-report\n"
    return text.replace(class_line, f"class: {cls}\n" if cls else "")


def build(
    project: Path,
    lessons: Mapping[str, str | bytes],
    *,
    when: str = "2026-11-29T09:00:00Z",
    commits: Iterable[tuple[str, Mapping[str, str | bytes | None]]] = (),
    index: str | bytes | None = None,
    active: Iterable[str] | None = None,
) -> Path:
    """A base whose INDEX.md lists every active lesson (so index-layout stays quiet)."""
    if active is None:
        active = [lid for lid, text in lessons.items() if _status(text) == "active"]
    index = index if index is not None else index_text(active=list(active))
    extra = {"LESSONS/INDEX.md": index}
    files = {f"{lid}.md": text for lid, text in lessons.items()}
    return make_base(project, lessons=files, extra=extra, when=when, commits=commits)


def _status(text: str | bytes) -> str:
    raw = text.decode() if isinstance(text, bytes) else text
    return next(
        line.split(":", 1)[1].strip() for line in raw.splitlines() if line.startswith("status:")
    )


def stats_of(
    base: Path,
    as_of: date = AS_OF,
    thresholds: dict[str, float] | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
) -> BaseStats:
    """The signs of ``base``; without ``con`` also from a warehouse that ingested only the
    base, which must give every sign the files give (the transcript signs aside: the files
    alone cannot weigh them)."""
    t = Thresholds(**(thresholds or {}))
    stats = base_stats(base, as_of, t, con)
    if con is None:
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "w.duckdb"
            ingest(db, [], [base])
            with duckdb.connect(str(db), read_only=True) as held:
                stored = warehouse_stats(held, str(base.resolve()), as_of, t)
        assert stored.source == "warehouse" and stats.source == "files"
        kept = [s.as_dict() for s in stats.signs if s.name not in TRANSCRIPT_SIGNS]
        assert [s.as_dict() for s in stored.signs if s.name not in TRANSCRIPT_SIGNS] == kept
    return stats


def sign(stats: BaseStats, name: str) -> Sign:
    (found,) = [s for s in stats.signs if s.name == name]
    return found


def fired(stats: BaseStats) -> dict[str, list[str]]:
    return {s.name: s.lessons for s in stats.signs if s.fired}


def padded(text: str, size: int) -> bytes:
    """``text`` with a ``Note:`` line of x's after the rule so the file is ``size`` bytes."""
    raw = text.encode("utf-8")
    at = raw.index(b"Why:")
    filler = size - len(raw) - len(b"Note: \n")
    assert filler >= 0
    return raw[:at] + b"Note: " + b"x" * filler + b"\n" + raw[at:]


def run(*args: str, db: Path, config: Path | None = None) -> Any:
    argv = ["--db", str(db)]
    if config is not None:
        argv += ["--config", str(config)]
    return CliRunner().invoke(cli, [*argv, *args], catch_exceptions=False)


def run_json(base: Path, db: Path, *extra: str, config: Path | None = None) -> dict[str, Any]:
    result = run(
        "stats", str(base), "--json", "--as-of", AS_OF.isoformat(), *extra, db=db, config=config
    )
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


# ---------------------------------------------------------------- candidate-needs-verdict


def test_candidate_needs_verdict_at_and_below_each_threshold(tmp_path: Path) -> None:
    young = "2026-11-29"  # age 1 day at AS_OF
    lessons = {
        # 3 hits in 3 sessions = 3 independent >= 3: fires
        "L-0001": lesson(
            "L-0001",
            status="candidate",
            created=young,
            hits=[hit("2026-11-20", session=s) for s in ("s-a", "s-b", "s-c")],
        ),
        # 2 independent and age 2026-11-30 - 2026-11-15 = 15 days > 14: fires
        "L-0002": lesson(
            "L-0002",
            status="candidate",
            created="2026-11-15",
            hits=[hit("2026-11-20", session=s) for s in ("s-d", "s-e")],
        ),
        # 2 independent, age 14 days: 14 > 14 is false: does not fire
        "L-0003": lesson(
            "L-0003",
            status="candidate",
            created="2026-11-16",
            hits=[hit("2026-11-20", session=s) for s in ("s-f", "s-g")],
        ),
        # 3 hits of one session = 1 independent, young: does not fire
        "L-0004": lesson(
            "L-0004",
            status="candidate",
            created=young,
            hits=[hit(f"2026-11-2{i}", session="s-h") for i in (1, 2, 3)],
        ),
        # 2 hits + a form-only line (not a hit) = 2 independent, young: does not fire
        "L-0005": lesson(
            "L-0005",
            status="candidate",
            created=young,
            hits=[
                hit("2026-11-20", session="s-i"),
                hit("2026-11-21", session="s-j"),
                hit("2026-11-22", session="s-k", defect="form-only"),
            ],
        ),
        # 3 hits without a session: each counts as one, 3 independent: fires
        "L-0006": lesson(
            "L-0006",
            status="candidate",
            created=young,
            hits=[hit(f"2026-11-2{i}") for i in (1, 2, 3)],
        ),
        # an active lesson with 3 independent hits is no candidate: does not fire
        "L-0007": lesson(
            "L-0007",
            status="active",
            created=young,
            hits=[hit("2026-11-20", session=s) for s in ("s-l", "s-m", "s-n")],
        ),
    }
    base = build(tmp_path / "proj", lessons)
    result = sign(stats_of(base), "candidate-needs-verdict")
    assert result.fired is True
    assert result.lessons == ["L-0001", "L-0002", "L-0006"]
    assert result.value == 3
    assert result.threshold == {"independent_hits": 3, "aged_hits": 2, "age_days": 14}
    # a day earlier L-0002 is 14 days old and stops firing
    earlier = sign(stats_of(base, date(2026, 11, 29)), "candidate-needs-verdict")
    assert earlier.lessons == ["L-0001", "L-0006"]


def test_candidate_age_from_first_commit_without_created(tmp_path: Path) -> None:
    one = lesson("L-0001", status="candidate", hits=[hit("2026-11-15", session="s-a")])
    two = lesson(
        "L-0001",
        status="candidate",
        hits=[hit("2026-11-15", session="s-a"), hit("2026-11-28", session="s-b")],
    )
    other = lesson(
        "L-0002",
        status="candidate",
        hits=[hit("2026-11-16", session="s-c"), hit("2026-11-17", session="s-d")],
    )
    base = make_base(
        tmp_path / "proj",
        index=index_text(),
        when="2026-11-01T09:00:00Z",
        commits=[
            ("2026-11-15T09:00:00Z", {"LESSONS/L-0001.md": one}),
            ("2026-11-16T09:00:00Z", {"LESSONS/L-0002.md": other}),
            ("2026-11-28T09:00:00Z", {"LESSONS/L-0001.md": two}),
        ],
    )
    # L-0001: first commit 2026-11-15 -> 15 days, 2 independent: fires (the later commit
    # does not make it younger). L-0002: first commit 2026-11-16 -> 14 days: does not.
    assert sign(stats_of(base), "candidate-needs-verdict").lessons == ["L-0001"]


# ---------------------------------------------------------------- candidates-without-verdict


@pytest.mark.parametrize(("count", "fires"), [(11, True), (10, False)])
def test_candidates_without_verdict(tmp_path: Path, count: int, fires: bool) -> None:
    ids = [f"L-{n:04d}" for n in range(1, count + 1)]
    base = build(
        tmp_path / "proj", {i: lesson(i, status="candidate", created="2026-11-29") for i in ids}
    )
    result = sign(stats_of(base), "candidates-without-verdict")
    # fires when more than 10: 11 > 10 yes, 10 > 10 no
    assert (result.value, result.threshold, result.fired) == (count, 10, fires)
    assert result.lessons == (ids if fires else [])


# ---------------------------------------------------------------- stale-candidate


def test_stale_candidate_from_hits_commits_and_created(tmp_path: Path) -> None:
    old = "2026-10-01"
    initial = {
        # created and committed 2026-10-01, but a hit on 2026-11-25: idle 5 days: no
        "L-0003": lesson("L-0003", status="candidate", created=old, hits=[hit("2026-11-25")]),
        # created 2026-10-01, edited (committed) again on 2026-11-22: idle 8 days: no
        "L-0004": lesson("L-0004", status="candidate", created=old),
        # last hit 2026-11-19: idle 11 days > 10: fires
        "L-0005": lesson("L-0005", status="candidate", created=old, hits=[hit("2026-11-19")]),
        # only a form-only line (2026-11-28), which is no hit: idle since 2026-10-01: fires
        "L-0008": lesson(
            "L-0008", status="candidate", created=old, hits=[hit("2026-11-28", defect="form-only")]
        ),
        # an active lesson is never a stale candidate
        "L-0007": lesson("L-0007", status="active", created=old),
    }
    base = build(
        tmp_path / "proj",
        initial,
        when=f"{old}T09:00:00Z",
        commits=[
            # no hit, created and committed 2026-11-19: idle 11 days: fires
            (
                "2026-11-19T09:00:00Z",
                {
                    "LESSONS/L-0001.md": lesson("L-0001", status="candidate", created="2026-11-19"),
                    # no created: its first commit, 2026-11-19: fires
                    "LESSONS/L-0006.md": lesson("L-0006", status="candidate"),
                },
            ),
            # created and committed 2026-11-20: idle 10 days, not more than 10: no
            (
                "2026-11-20T09:00:00Z",
                {"LESSONS/L-0002.md": lesson("L-0002", status="candidate", created="2026-11-20")},
            ),
            (
                "2026-11-22T09:00:00Z",
                {"LESSONS/L-0004.md": lesson("L-0004", status="candidate", created=old) + "\n"},
            ),
        ],
    )
    result = sign(stats_of(base), "stale-candidate")
    assert (result.value, result.threshold, result.fired) == (4, 10, True)
    assert result.lessons == ["L-0001", "L-0005", "L-0006", "L-0008"]
    # measured at 2026-11-29 the 11-day ones are 10 days idle; L-0008 (59 days) still fires
    assert sign(stats_of(base, date(2026, 11, 29)), "stale-candidate").lessons == ["L-0008"]


# ---------------------------------------------------------------- class-share


def _class_base(project: Path, fifth: list[str]) -> Path:
    classes = ["delta", "alpha", "gamma", "beta"]
    lessons = {
        f"L-000{n}": lesson(
            f"L-000{n}", cls=cls, created="2026-11-29", hits=[hit("2026-11-28") for _ in range(6)]
        )
        for n, cls in enumerate(classes, 1)
    }
    lessons["L-0005"] = lesson("L-0005", cls="epsilon", created="2026-11-29", hits=fifth)
    return build(project, lessons)


def test_class_share_exactly_at_threshold_fires(tmp_path: Path) -> None:
    # 4 classes x 6 hits = 24 hits; epsilon only has form-only lines (no hits; counted they
    # would make 6/30 = 20 %). Every class holds 6/24 = 25 % >= 25 %: fires; on the tie the
    # first class by name wins: alpha, held by L-0002.
    base = _class_base(tmp_path / "proj", [hit("2026-11-28", defect="form-only")] * 6)
    result = sign(stats_of(base), "class-share")
    assert result.value == {"class": "alpha", "share": 0.25}
    assert (result.threshold, result.fired, result.lessons) == (0.25, True, ["L-0002"])


def test_class_share_just_under_threshold_does_not_fire(tmp_path: Path) -> None:
    # one real epsilon hit: 25 hits, the top class holds 6/25 = 24 % < 25 %: quiet
    base = _class_base(tmp_path / "proj", [hit("2026-11-28")])
    result = sign(stats_of(base), "class-share")
    assert result.value == {"class": "alpha", "share": 0.24}
    assert (result.fired, result.lessons) == (False, [])


# ---------------------------------------------------------------- active signs


def test_active_without_hit_31_vs_30_days(tmp_path: Path) -> None:
    old = "2026-10-01"
    lessons = {
        # last hit 2026-10-30: 31 days > 30: fires
        "L-0001": lesson("L-0001", created=old, hits=[hit("2026-10-02"), hit("2026-10-30")]),
        # last hit 2026-10-31: 30 days: no
        "L-0002": lesson("L-0002", created=old, hits=[hit("2026-10-31")]),
        # never hit, created 2026-10-30: 31 days: fires
        "L-0003": lesson("L-0003", created="2026-10-30"),
        # never hit, created 2026-10-31: 30 days: no
        "L-0004": lesson("L-0004", created="2026-10-31"),
        # a form-only line on 2026-11-29 is no hit: quiet since 2026-10-01: fires
        "L-0005": lesson("L-0005", created=old, hits=[hit("2026-11-29", defect="form-only")]),
        # a candidate is not active
        "L-0006": lesson("L-0006", status="candidate", created=old),
    }
    base = build(tmp_path / "proj", lessons, when=f"{old}T09:00:00Z")
    result = sign(stats_of(base), "active-without-hit")
    assert (result.value, result.threshold, result.fired) == (3, 30, True)
    assert result.lessons == ["L-0001", "L-0003", "L-0005"]


def test_active_unconfirmed_unless_helped_true(tmp_path: Path) -> None:
    lessons = {
        "L-0001": lesson("L-0001", helped=True),  # confirmed: no
        "L-0002": lesson("L-0002", helped=None),  # null: fires
        "L-0003": lesson("L-0003", helped=False),  # false: fires
        "L-0004": lesson("L-0004"),  # no evidence at all: fires
        "L-0005": lesson("L-0005", status="candidate", helped=None),  # not active: no
    }
    result = sign(stats_of(build(tmp_path / "proj", lessons)), "active-unconfirmed")
    assert (result.value, result.threshold, result.fired) == (3, None, True)
    assert result.lessons == ["L-0002", "L-0003", "L-0004"]


def test_active_unconfirmed_quiet_when_all_confirmed(tmp_path: Path) -> None:
    base = build(tmp_path / "proj", {"L-0001": lesson("L-0001", helped=True)})
    result = sign(stats_of(base), "active-unconfirmed")
    assert (result.value, result.fired, result.lessons) == (0, False, [])


# ---------------------------------------------------------------- body signs


def test_fat_body_over_20480_bytes(tmp_path: Path) -> None:
    lessons = {
        "L-0001": padded(lesson("L-0001", helped=True), 20481),  # 20481 > 20480: fires
        "L-0002": padded(lesson("L-0002", helped=True), 20480),  # 20480: no
    }
    base = build(tmp_path / "proj", lessons)
    assert [(base / f"{i}.md").stat().st_size for i in lessons] == [20481, 20480]
    result = sign(stats_of(base), "fat-body")
    assert (result.value, result.threshold, result.fired, result.lessons) == (
        1,
        20480,
        True,
        ["L-0001"],
    )


def _journal_heavy(lesson_id: str, extra_head: int) -> bytes:
    """A lesson whose head (before ``## Hits``) is J + extra_head bytes, J the journal's."""
    raw = lesson(
        lesson_id, helped=True, hits=[hit(f"2026-11-{d:02d}") for d in range(10, 28)]
    ).encode()
    at = raw.index(b"## Hits")
    journal = len(raw) - at
    filler = journal + extra_head - at - len(b"Note: \n")
    assert filler > 0
    return raw[:at] + b"Note: " + b"n" * filler + b"\n" + raw[at:]


def test_journal_share_just_over_half_fires_exactly_half_does_not(tmp_path: Path) -> None:
    # L-0001: head J-1 bytes, journal J: share J/(2J-1) > 0.5: fires.
    # L-0002: head J bytes, journal J: share exactly 0.5, not over: no.
    lessons = {"L-0001": _journal_heavy("L-0001", -1), "L-0002": _journal_heavy("L-0002", 0)}
    base = build(tmp_path / "proj", lessons)
    for lid, text in lessons.items():
        journal = len(text) - text.index(b"## Hits")
        size = (base / f"{lid}.md").stat().st_size
        assert size == 2 * journal - (1 if lid == "L-0001" else 0)
    result = sign(stats_of(base), "journal-share")
    assert (result.value, result.threshold, result.fired, result.lessons) == (
        1,
        0.5,
        True,
        ["L-0001"],
    )


# ---------------------------------------------------------------- index-layout


def test_index_layout_fires_on_a_failing_check(tmp_path: Path) -> None:
    lessons = {"L-0001": lesson("L-0001", helped=True, created="2026-11-29")}
    good = build(tmp_path / "good", lessons)
    assert sign(stats_of(good), "index-layout").fired is False
    # the active lesson has no row: one failure (active-without-row)
    bad = build(tmp_path / "bad", lessons, active=[])
    result = sign(stats_of(bad), "index-layout")
    assert (result.value, result.threshold, result.fired, result.lessons) == (1, 0, True, [])


# ---------------------------------------------------------------- sleep_due


def _clean(project: Path, **kwargs: Any) -> Path:
    """Nothing fires: one confirmed active lesson, created 5 days ago, never hit."""
    return build(project, {"L-0001": lesson("L-0001", helped=True, created="2026-11-25")}, **kwargs)


def test_clean_base_nothing_fires(tmp_path: Path) -> None:
    stats = stats_of(_clean(tmp_path / "proj"))
    assert [s.name for s in stats.signs] == SIGN_NAMES
    assert fired(stats) == {}
    assert stats.sleep_due is False
    assert marker_line(stats) is None


def test_sleep_due_from_one_base_level_sign_alone(tmp_path: Path) -> None:
    # index-layout alone: a row whose lesson file does not exist
    stats = stats_of(_clean(tmp_path / "a", index=index_text(active=["L-0001", "L-0099"])))
    assert fired(stats) == {"index-layout": []}
    assert stats.sleep_due is True
    # candidates-without-verdict alone: 11 young candidates without hits
    ids = [f"L-{n:04d}" for n in range(1, 12)]
    base = build(
        tmp_path / "b", {i: lesson(i, status="candidate", created="2026-11-29") for i in ids}
    )
    stats = stats_of(base)
    assert fired(stats) == {"candidates-without-verdict": ids}
    assert stats.sleep_due is True
    # class-share alone: one confirmed active lesson hit yesterday holds 100 % of the hits
    base = build(
        tmp_path / "c",
        {"L-0001": lesson("L-0001", helped=True, created="2026-11-25", hits=[hit("2026-11-29")])},
    )
    stats = stats_of(base)
    assert fired(stats) == {"class-share": ["L-0001"]}
    assert stats.sleep_due is True
    assert marker_line(stats) == (
        "<!-- sleep-due: 2026-11-30 · reasons: class-share=verify-before-report:100% -->"
    )


@pytest.mark.parametrize(("count", "due"), [(4, True), (3, False)])
def test_sleep_due_from_lesson_signs_over_three_lessons(
    tmp_path: Path, count: int, due: bool
) -> None:
    ids = [f"L-{n:04d}" for n in range(1, count + 1)]
    base = build(tmp_path / "proj", {i: lesson(i, helped=None, created="2026-11-29") for i in ids})
    stats = stats_of(base)
    assert fired(stats) == {"active-unconfirmed": ids}
    assert stats.sleep_due is due  # 4 > 3 lessons: due; 3 is not more than 3
    assert (marker_line(stats) is not None) is due


def test_sleep_due_counts_distinct_lessons_across_signs(tmp_path: Path) -> None:
    lessons: dict[str, str | bytes] = {
        # L-0001 fires two signs (fat-body and active-unconfirmed): one lesson
        "L-0001": padded(lesson("L-0001", created="2026-11-29"), 20481),
        "L-0002": lesson("L-0002", created="2026-11-29"),
        # stale candidate: created and committed 2026-11-01, 29 days idle
        "L-0003": lesson("L-0003", status="candidate", created="2026-11-01"),
    }
    when = "2026-11-01T09:00:00Z"
    base = build(tmp_path / "three", lessons, when=when)
    stats = stats_of(base)
    assert fired(stats) == {
        "active-unconfirmed": ["L-0001", "L-0002"],
        "fat-body": ["L-0001"],
        "stale-candidate": ["L-0003"],
    }
    assert stats.sleep_due is False  # 4 firings, 3 distinct lessons
    lessons["L-0004"] = lesson("L-0004", status="candidate", created="2026-11-01")
    stats = stats_of(build(tmp_path / "four", lessons, when=when))
    assert fired(stats)["stale-candidate"] == ["L-0003", "L-0004"]
    assert stats.sleep_due is True  # 4 distinct lessons > 3


def test_thresholds_override_defaults(tmp_path: Path) -> None:
    ids = ["L-0001", "L-0002"]
    base = build(
        tmp_path / "proj", {i: lesson(i, status="candidate", created="2026-11-29") for i in ids}
    )
    assert sign(stats_of(base), "candidates-without-verdict").fired is False
    result = sign(stats_of(base, thresholds={"candidates_max": 1}), "candidates-without-verdict")
    assert (result.threshold, result.fired, result.lessons) == (1, True, ids)  # 2 > 1


# ---------------------------------------------------------------- transcript signs


def test_transcript_signs_without_a_warehouse_are_null(tmp_path: Path) -> None:
    stats = stats_of(_clean(tmp_path / "proj"))
    for name in TRANSCRIPT_SIGNS:
        result = sign(stats, name)
        assert (result.value, result.fired, result.lessons) == (None, False, [])
    doc = run_json(tmp_path / "proj", tmp_path / "absent.duckdb")
    assert not (tmp_path / "absent.duckdb").exists()  # stats never creates a warehouse
    signs = {s["name"]: s for s in doc["bases"][0]["signs"]}
    assert [signs[n]["value"] for n in TRANSCRIPT_SIGNS] == [None] * len(TRANSCRIPT_SIGNS)
    assert [signs[n]["fired"] for n in TRANSCRIPT_SIGNS] == [False] * len(TRANSCRIPT_SIGNS)


S1, S2, S3, S4 = (f"5e550000-0000-4000-8000-00000000000{n}" for n in (1, 2, 3, 4))
LOST = "5e550000-0000-4000-8000-0000000000ff"  # named in a journal, no transcript


def _line(session: str, cwd: Path, kind: str, ts: str, n: int, **fields: Any) -> str:
    record = {
        "parentUuid": None if n == 0 else f"{session[-12:]}-0000-4000-8000-{n - 1:012d}",
        "isSidechain": False,
        "userType": "external",
        "cwd": str(cwd),
        "sessionId": session,
        "version": "2.0.30",
        "gitBranch": "main",
        "type": kind,
        "uuid": f"{session[-12:]}-0000-4000-8000-{n:012d}",
        "timestamp": ts,
        **fields,
    }
    return json.dumps(record)


def _transcript(
    session: str, cwd: Path, day: str, calls: list[tuple[str, dict[str, str], str, str, str]]
) -> str:
    """A Claude Code trunk transcript: a prompt at 09:00, each (tool, input, result, called
    HH:MM, answered HH:MM) as a tool_use line and its tool_result line, the end at 12:00."""
    usage = {"input_tokens": 3, "output_tokens": 5}
    out = [
        _line(
            session,
            cwd,
            "user",
            f"{day}T09:00:00.000Z",
            0,
            message={"role": "user", "content": "fix the report"},
        )
    ]
    for i, (tool, args, result, called, answered) in enumerate(calls):
        tool_id = f"toolu_{session[-4:]}{i:02d}"
        out.append(
            _line(
                session,
                cwd,
                "assistant",
                f"{day}T{called}:00.000Z",
                len(out),
                message={
                    "id": f"msg_{session[-4:]}{i:02d}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-20250514",
                    "content": [{"type": "tool_use", "id": tool_id, "name": tool, "input": args}],
                    "stop_reason": "tool_use",
                    "stop_sequence": None,
                    "usage": usage,
                },
                requestId=f"req_{session[-4:]}{i:02d}",
            )
        )
        tool_result = {"stdout": result, "stderr": "", "interrupted": False, "isImage": False}
        if tool == "Read":
            tool_result = {
                "type": "text",
                "file": {"filePath": args["file_path"], "content": result},
            }
        out.append(
            _line(
                session,
                cwd,
                "user",
                f"{day}T{answered}:00.000Z",
                len(out),
                message={
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": tool_id,
                            "type": "tool_result",
                            "content": result,
                            "is_error": False,
                        }
                    ],
                },
                toolUseResult=tool_result,
            )
        )
    out.append(
        _line(
            session,
            cwd,
            "assistant",
            f"{day}T12:00:00.000Z",
            len(out),
            message={
                "id": f"msg_{session[-4:]}end",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-20250514",
                "content": [{"type": "text", "text": "done"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": usage,
            },
            requestId=f"req_{session[-4:]}end",
        )
    )
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def warehoused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One base and a warehouse of four sessions, all in ISO week 2026-W47 (Mon 11-16).

    S1 (11-17): reads L-0001 at 10:00 and L-0002 at 10:05; `make test` 10:10-11:10.
    S2 (11-18): reads L-0001 at 10:00; `make test` 10:10-11:10; `make lint` 11:20-11:50.
    S3 (11-19): reads nothing.
    S4 (11-20): reads L-0005 at 11:00, after that lesson's miss at 10:30.
    """
    root = tmp_path_factory.mktemp("wh")
    project = root / "proj"
    day = {S1: "2026-11-17", S2: "2026-11-18", S3: "2026-11-19", S4: "2026-11-20"}

    def miss(session: str) -> str:
        return hit(
            day.get(session, "2026-11-21"),
            session=session,
            ts=f"{day.get(session, '2026-11-21')}T10:30:00Z",
        )

    lessons = {
        # read before both misses (S1, S2): 2 recalled hits -> recalled-but-failed
        "L-0001": lesson(
            "L-0001", cls="a", helped=True, ritual="^make test", hits=[miss(S1), miss(S2)]
        ),
        # 1 recalled (S1) + 1 not recalled (S3): neither transcript sign
        "L-0002": lesson("L-0002", cls="b", helped=True, hits=[miss(S1), miss(S3)]),
        # 2 known hits, none recalled -> never-recalled
        "L-0003": lesson(
            "L-0003", cls="c", helped=True, ritual="^make lint", hits=[miss(S3), miss(S4)]
        ),
        # 1 known not recalled + 1 unknown (no transcript): only 1 known: no
        "L-0004": lesson("L-0004", cls="d", helped=True, hits=[miss(S3), miss(LOST)]),
        # read in S4 only after its miss there: 2 known, none recalled -> never-recalled
        "L-0005": lesson("L-0005", cls="e", helped=True, hits=[miss(S3), miss(S4)]),
    }
    base = build(project, lessons, when="2026-11-01T09:00:00Z")
    path = {lid: str(base / f"{lid}.md") for lid in lessons}
    # costly-body: chars / 4 = tokens over 1 week. L-0002: one read of 800004 chars ->
    # 200001 tokens > 200000: fires. L-0001: two reads of 400000 -> 200000: not over.
    big, half = "x" * 800_004, "x" * 400_000
    sessions = {
        S1: [
            ("Read", {"file_path": path["L-0001"]}, half, "10:00", "10:01"),
            ("Read", {"file_path": path["L-0002"]}, big, "10:05", "10:06"),
            ("Bash", {"command": "make test", "description": "tests"}, "ok", "10:10", "11:10"),
        ],
        S2: [
            ("Read", {"file_path": path["L-0001"]}, half, "10:00", "10:01"),
            ("Bash", {"command": "make test", "description": "tests"}, "ok", "10:10", "11:10"),
            ("Bash", {"command": "make lint", "description": "lint"}, "ok", "11:20", "11:50"),
        ],
        S3: [
            ("Bash", {"command": "git status", "description": "status"}, "clean", "10:00", "10:01")
        ],
        S4: [("Read", {"file_path": path["L-0005"]}, "short", "11:00", "11:01")],
    }
    folder = root / "claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True)
    for session, calls in sessions.items():
        (folder / f"{session}.jsonl").write_text(_transcript(session, project, day[session], calls))
    db = root / "warehouse.duckdb"
    report = ingest(db, [root / "claude"], extra_bases=[base])
    assert report.document()["load_errors"] == 0
    return base, db


def test_transcript_signs_from_the_warehouse(warehoused: tuple[Path, Path]) -> None:
    base, db = warehoused
    con = warehouse.connect(db, read_only=True)
    try:
        stats = stats_of(base, con=con)
    finally:
        con.close()
    failed = sign(stats, "recalled-but-failed")
    assert (failed.value, failed.threshold, failed.fired, failed.lessons) == (
        1,
        2,
        True,
        ["L-0001"],
    )
    never = sign(stats, "never-recalled")
    assert (never.value, never.fired, never.lessons) == (2, True, ["L-0003", "L-0005"])
    # `make test` 2 x 3600 s = 2 h in 1 ISO week -> 2 h/week > 1: L-0001 fires;
    # `make lint` 1800 s = 0.5 h/week: L-0003 does not. value: the worst, 2.0
    ritual = sign(stats, "costly-ritual")
    assert (ritual.value, ritual.threshold, ritual.fired, ritual.lessons) == (
        2.0,
        1.0,
        True,
        ["L-0001"],
    )
    body = sign(stats, "costly-body")
    assert (body.value, body.threshold, body.fired, body.lessons) == (
        200001.0,
        200000,
        True,
        ["L-0002"],
    )
    assert isinstance(body.value, float)


def test_transcript_signs_through_the_cli_json(warehoused: tuple[Path, Path]) -> None:
    base, db = warehoused
    doc = run_json(base, db)
    signs = {s["name"]: s for s in doc["bases"][0]["signs"]}
    assert signs["costly-body"]["value"] == 200001.0
    assert signs["costly-ritual"]["lessons"] == ["L-0001"]
    assert signs["never-recalled"]["lessons"] == ["L-0003", "L-0005"]
    assert signs["recalled-but-failed"]["lessons"] == ["L-0001"]


def test_transcript_signs_with_thresholds_raised(warehoused: tuple[Path, Path]) -> None:
    base, db = warehoused
    con = warehouse.connect(db, read_only=True)
    try:
        stats = stats_of(
            base,
            thresholds={
                "recalled_but_failed_hits": 3,
                "never_recalled_hits": 3,
                "costly_ritual_hours_per_week": 2,
                "costly_body_tokens_per_week": 200001,
            },
            con=con,
        )
    finally:
        con.close()
    # 2 recalled < 3; 2 known < 3; 2.0 h not over 2; 200001 tokens not over 200001
    assert {n: sign(stats, n).fired for n in TRANSCRIPT_SIGNS} == dict.fromkeys(
        TRANSCRIPT_SIGNS, False
    )


def test_base_missing_from_the_warehouse_gives_null(
    tmp_path: Path, warehoused: tuple[Path, Path]
) -> None:
    _base, db = warehoused
    doc = run_json(_clean(tmp_path / "other"), db)
    signs = {s["name"]: s for s in doc["bases"][0]["signs"]}
    assert [signs[n]["value"] for n in TRANSCRIPT_SIGNS] == [None] * len(TRANSCRIPT_SIGNS)


# ---------------------------------------------------------------- --mark

MARK = "<!-- sleep-due: 2026-11-30 · reasons: class-share=verify-before-report:100% -->"


def _due(project: Path, index: bytes) -> Path:
    """Only class-share fires (one lesson, one hit), with INDEX.md exactly ``index``."""
    text = lesson("L-0001", helped=True, created="2026-11-25", hits=[hit("2026-11-29")])
    return build(project, {"L-0001": text}, index=index)


def mark(base: Path, tmp_path: Path, as_of: str = "2026-11-30") -> Any:
    result = run("stats", str(base), "--mark", "--as-of", as_of, db=tmp_path / "none.duckdb")
    assert result.exit_code == 0, result.output
    return result


INDEX_LF = index_text(active=["L-0001"]).encode()


@pytest.mark.parametrize(
    "before",
    [INDEX_LF, INDEX_LF.replace(b"\n", b"\r\n"), INDEX_LF.rstrip(b"\n")],
    ids=["lf", "crlf", "no-final-newline"],
)
def test_mark_writes_the_line_after_the_title_and_nothing_else(
    tmp_path: Path, before: bytes
) -> None:
    project = tmp_path / "proj"
    base = _due(project, before)
    whole = tree(project)
    mark(base, tmp_path)
    after = (base / "INDEX.md").read_bytes()
    lines = after.splitlines(keepends=True)
    ending = b"\r\n" if b"\r\n" in before else b"\n"
    assert lines[0] == b"# Lessons: demo" + ending
    assert lines[1] == MARK.encode() + ending
    assert b"".join(lines[:1] + lines[2:]) == before  # every other byte unchanged
    # INDEX.md is the only file touched; no temporary file left behind
    now = tree(project)
    assert set(now) == set(whole)
    assert {k for k in now if now[k] != whole[k]} == {"LESSONS/INDEX.md"}
    # a second run changes nothing: same bytes, same mtime
    stamp = (base / "INDEX.md").stat().st_mtime_ns
    result = run(
        "stats", str(base), "--mark", "--json", "--as-of", "2026-11-30", db=tmp_path / "none.duckdb"
    )
    assert json.loads(result.stdout)["marked"] == []
    assert (base / "INDEX.md").read_bytes() == after
    assert (base / "INDEX.md").stat().st_mtime_ns == stamp
    assert tree(project) == now


def test_mark_refreshes_an_existing_marker_in_place(tmp_path: Path) -> None:
    old = "<!-- sleep-due: 2026-11-01 · reasons: candidates-without-verdict=12 -->"
    before = index_text(active=["L-0001"], marker=old).encode().replace(b"\n", b"\r\n")
    base = _due(tmp_path / "proj", before)
    mark(base, tmp_path)
    new_lines = (base / "INDEX.md").read_bytes().splitlines(keepends=True)
    old_lines = before.splitlines(keepends=True)
    assert old_lines[1] == old.encode() + b"\r\n"
    assert new_lines[1] == MARK.encode() + b"\r\n"
    assert new_lines[:1] + new_lines[2:] == old_lines[:1] + old_lines[2:]


def test_mark_removes_the_marker_when_nothing_fires(tmp_path: Path) -> None:
    old = "<!-- sleep-due: 2026-11-01 · reasons: class-share=x:40% -->"
    before = index_text(active=["L-0001"], marker=old).encode()
    base = _clean(tmp_path / "proj", index=before)
    whole = tree(tmp_path / "proj")
    mark(base, tmp_path)
    after = (base / "INDEX.md").read_bytes()
    assert after == before.replace(old.encode() + b"\n", b"")
    assert after == INDEX_LF
    now = tree(tmp_path / "proj")
    assert {k for k in now if now[k] != whole[k]} == {"LESSONS/INDEX.md"}
    # nothing fires and no marker: the file is not rewritten
    stamp = (base / "INDEX.md").stat().st_mtime_ns
    mark(base, tmp_path)
    assert (base / "INDEX.md").stat().st_mtime_ns == stamp


def test_mark_with_a_new_date_refreshes_only_the_date(tmp_path: Path) -> None:
    base = _due(tmp_path / "proj", INDEX_LF)
    mark(base, tmp_path)
    mark(base, tmp_path, as_of="2026-12-01")
    lines = (base / "INDEX.md").read_bytes().splitlines(keepends=True)
    assert lines[1] == MARK.replace("2026-11-30", "2026-12-01").encode() + b"\n"
    assert b"".join(lines[:1] + lines[2:]) == INDEX_LF


def test_apply_marker_edge_cases(tmp_path: Path) -> None:
    index = tmp_path / "INDEX.md"
    # a marker spelled without the space is still the marker: refreshed, never doubled
    index.write_bytes(b"# T\n<!--sleep-due: 2026-01-01 -->\nnote\n## Active\n")
    assert apply_marker(index, MARK) is True
    assert index.read_bytes() == b"# T\n" + MARK.encode() + b"\nnote\n## Active\n"
    assert apply_marker(index, MARK) is False
    # no title: the marker goes just above the first `##`, never below it
    index.write_bytes(b"note\n## Active\n| L-0001 |\n")
    apply_marker(index, MARK)
    assert index.read_bytes() == b"note\n" + MARK.encode() + b"\n## Active\n| L-0001 |\n"
    # a `###` line is no section heading; a marker below the first `##` is left alone
    index.write_bytes(b"# T\n### sub\n## A\n<!-- sleep-due: x -->\n")
    apply_marker(index, MARK)
    assert (
        index.read_bytes() == b"# T\n" + MARK.encode() + b"\n### sub\n## A\n<!-- sleep-due: x -->\n"
    )
    # a title-only file without a final newline gets one before the marker
    index.write_bytes(b"# T")
    apply_marker(index, MARK)
    assert index.read_bytes() == b"# T\n" + MARK.encode() + b"\n"
    # nothing to write and no marker: untouched
    index.write_bytes(b"# T\n## A\n")
    assert apply_marker(index, None) is False
    assert sorted(p.name for p in tmp_path.iterdir()) == ["INDEX.md"]


# ---------------------------------------------------------------- --json and config


def test_json_document_shape(tmp_path: Path) -> None:
    base = _due(tmp_path / "proj", INDEX_LF)
    doc = run_json(base, tmp_path / "none.duckdb")
    assert doc["schema"] == "lessons-analytics/stats/1"
    assert datetime.fromisoformat(doc["generated_at"]).tzinfo is not None
    (entry,) = doc["bases"]
    assert entry["base"] == str(base.resolve())
    assert entry["sleep_due"] is True
    assert [s["name"] for s in entry["signs"]] == SIGN_NAMES
    # no warehouse holds the base: weighed from its files, which were not compared to one
    assert (entry["source"], entry["changed_since_ingest"]) == ("files", None)
    for item in entry["signs"]:
        assert set(item) == {"name", "value", "threshold", "fired", "lessons"}
        assert isinstance(item["fired"], bool)
        assert isinstance(item["lessons"], list)
    signs = {s["name"]: s for s in entry["signs"]}
    assert signs["class-share"] == {
        "name": "class-share",
        "value": {"class": "verify-before-report", "share": 1.0},
        "threshold": 0.25,
        "fired": True,
        "lessons": ["L-0001"],
    }
    assert signs["candidates-without-verdict"] == {
        "name": "candidates-without-verdict",
        "value": 0,
        "threshold": 10,
        "fired": False,
        "lessons": [],
    }
    assert (base / "INDEX.md").read_bytes() == INDEX_LF  # without --mark nothing is written


def test_a_base_changed_since_the_ingest_is_weighed_as_ingested_and_not_marked(
    tmp_path: Path,
) -> None:
    # ingested with 11 candidates (> 10: candidates-without-verdict fires); then one is
    # promoted on disk: the warehouse still holds 11, and says the files changed
    lessons = {f"L-{n:04d}": lesson(f"L-{n:04d}", status="candidate") for n in range(1, 12)}
    base = build(tmp_path / "proj", lessons, index=index_text(candidates=list(lessons)))
    db = tmp_path / "w.duckdb"
    ingest(db, [], [base])
    (entry,) = run_json(base, db)["bases"]
    assert (entry["source"], entry["changed_since_ingest"]) == ("warehouse", False)
    assert {s["name"]: s["value"] for s in entry["signs"]}["candidates-without-verdict"] == 11
    first = base / "L-0001.md"
    first.write_text(first.read_text().replace("status: candidate", "status: deferred"))
    (entry,) = run_json(base, db)["bases"]
    assert entry["changed_since_ingest"] is True
    assert {s["name"]: s["value"] for s in entry["signs"]}["candidates-without-verdict"] == 11
    text = run("stats", str(base), "--as-of", AS_OF.isoformat(), db=db)
    assert text.exit_code == 0 and "changed since the last ingest" in text.stderr
    before = (base / "INDEX.md").read_bytes()
    refused = run("stats", str(base), "--mark", "--as-of", AS_OF.isoformat(), db=db)
    assert refused.exit_code == 1 and "run `lessons-analytics ingest` first" in refused.output
    assert (base / "INDEX.md").read_bytes() == before
    ingest(db, [], [base])
    (entry,) = run_json(base, db)["bases"]
    assert entry["changed_since_ingest"] is False
    assert {s["name"]: s["value"] for s in entry["signs"]}["candidates-without-verdict"] == 10
    marked = run("stats", str(base), "--mark", "--as-of", AS_OF.isoformat(), db=db)
    assert marked.exit_code == 0, marked.output


def test_config_thresholds_change_what_fires(tmp_path: Path) -> None:
    lessons = {"L-0001": padded(lesson("L-0001", helped=True, created="2026-11-29"), 20480)}
    base = build(tmp_path / "proj", lessons)
    doc = run_json(base, tmp_path / "none.duckdb")
    assert {s["name"]: s["fired"] for s in doc["bases"][0]["signs"]}["fat-body"] is False
    config = tmp_path / "lessons-analytics.toml"
    config.write_text("[thresholds]\nfat_body_bytes = 20479\n")
    doc = run_json(base, tmp_path / "none.duckdb", config=config)
    fat = {s["name"]: s for s in doc["bases"][0]["signs"]}["fat-body"]
    assert (fat["threshold"], fat["fired"], fat["lessons"]) == (
        20479,
        True,
        ["L-0001"],
    )  # 20480 > 20479


def test_unknown_threshold_is_an_error(tmp_path: Path) -> None:
    base = _clean(tmp_path / "proj")
    config = tmp_path / "lessons-analytics.toml"
    config.write_text("[thresholds]\nfat_bodie_bytes = 1\n")
    result = run("stats", str(base), "--json", db=tmp_path / "none.duckdb", config=config)
    assert result.exit_code == 1
    assert "unknown key 'fat_bodie_bytes' in [thresholds]" in result.stderr
    assert "did you mean fat_body_bytes?" in result.stderr
    assert result.stdout == ""
    config.write_text('[thresholds]\nfat_body_bytes = "big"\n')
    result = run("stats", str(base), db=tmp_path / "none.duckdb", config=config)
    assert result.exit_code == 1
    assert "[thresholds] fat_body_bytes must be a whole number, not 'big'" in result.stderr


def test_bad_as_of_and_missing_base(tmp_path: Path) -> None:
    base = _clean(tmp_path / "proj")
    result = run("stats", str(base), "--as-of", "30.11.2026", db=tmp_path / "none.duckdb")
    assert result.exit_code == 2
    assert "--as-of" in result.stderr
    result = run("stats", str(tmp_path / "nowhere"), db=tmp_path / "none.duckdb")
    assert result.exit_code == 1
    assert "no LESSONS/ folder" in result.stderr


def test_table_output(tmp_path: Path) -> None:
    base = _due(tmp_path / "proj", INDEX_LF)
    result = run("stats", str(base), "--as-of", "2026-11-30", db=tmp_path / "none.duckdb")
    assert result.exit_code == 0, result.output
    text = result.stdout.replace(str(base.resolve()), "<BASE>")
    assert text == TABLE


TABLE = """\
proj  (as of 2026-11-30; sleep due: yes)
sign                        value  fires when              fired  lessons
--------------------------  -----  ----------------------  -----  -------
candidate-needs-verdict         0  ≥ 3 hits; 2 if > 14 d
candidates-without-verdict      0  > 10 candidates
stale-candidate                 0  idle > 10 d
class-share                 100 %  ≥ 25 % of hits          FIRED  L-0001
active-without-hit              0  no hit for > 30 d
active-unconfirmed              0  helped is not true
fat-body                        0  body > 20 KiB
journal-share                   0  journal > 50 % of body
recalled-but-failed             -  ≥ 2 recalled hits
never-recalled                  -  ≥ 2 known, 0 recalled
costly-ritual                   -  > 1 h/week
costly-body                     -  > 200,000 tokens/week
helped-disagrees                -  helped vs verdict
index-layout                    0  a check rule fails
class-share: verify-before-report holds 100 % of the hits

value: lessons the rule holds for (index-layout: failed rules), or a measure with its unit
proj = <BASE>
"""
