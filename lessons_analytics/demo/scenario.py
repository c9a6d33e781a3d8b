"""Scenario knobs: how many sessions, which eras when, which projects, and the planned hits.

Everything the generator decides by table lives here, so the demo can be tuned without
touching the writers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Knobs:
    sessions_weekday: tuple[int, int] = (4, 6)  # Claude sessions per weekday (inclusive range)
    sessions_weekend: tuple[int, int] = (1, 2)
    codex_days: tuple[tuple[int, int], ...] = (  # (week, weekday) of each Codex rollout
        (1, 1),
        (1, 3),
        (2, 0),
        (2, 3),
        (3, 2),
        (3, 4),
        (4, 1),
        (4, 3),
        (5, 0),
        (5, 2),
        (6, 1),
        (6, 4),
        (7, 1),
        (7, 3),
        (8, 0),
        (8, 2),
    )
    bare_codex: int = 1  # how many of the first rollouts use the bare (pre-envelope) era
    resumed: int = 7  # sessions continued in a new file that replays the old lines
    index_read_share: float = 0.85  # sessions that read LESSONS/INDEX.md at all
    scout_share: float = 0.3  # 2.x sessions that send a scout subagent to the lessons
    reviewer_share: float = 0.07  # sessions with a reviewer subagent (and a rework loop)
    commit_share: float = 0.85  # sessions that commit at least once
    day_start_hour: int = 7  # sessions start in the 11.5 h after it (timeline.schedule)


KNOBS = Knobs()

# Claude Code versions by demo week: (version, weight). The team upgrades over the eight weeks.
ERAS_BY_WEEK: dict[int, tuple[tuple[str, int], ...]] = {
    1: (("1.0.51", 6), ("1.0.56", 3), ("2.0.37", 1)),
    2: (("1.0.56", 6), ("2.0.37", 4)),
    3: (("1.0.56", 2), ("2.0.37", 5), ("2.0.55", 3)),
    4: (("2.0.37", 3), ("2.0.55", 7)),
    5: (("2.0.55", 6), ("2.1.17", 4)),
    6: (("2.0.55", 3), ("2.1.17", 7)),
    7: (("2.1.17", 3), ("2.1.42", 4), ("2.1.114", 3)),
    8: (("2.1.42", 3), ("2.1.114", 7)),
}

# Working directories relative to the demo's repos/ folder, with a weight and the people
# (prompt language) who work there. services/api belongs to two bases.
PROJECTS: tuple[tuple[str, int, str], ...] = (
    ("atlas", 44, "en"),
    ("harbor", 16, "en"),
    ("harbor/web", 10, "en"),
    ("harbor/services/api", 24, "ru"),
    ("sandbox", 6, "en"),
)

BASE_CWDS: dict[str, tuple[str, ...]] = {
    "atlas": ("atlas",),
    "harbor": ("harbor", "harbor/web"),
    "api": ("harbor/services/api",),
}


@dataclass(frozen=True)
class HitSpec:
    base: str
    lesson: str
    week: int
    truth: str  # what the transcript will show: recalled | index | none
    recorded: str  # what the judge wrote: yes | no | unknown
    caught: str
    defect: str = "bug"
    source: str = "claude"  # claude | codex | unknown (session not in the demo) | none (no session)


def _h(
    base: str,
    lesson: str,
    week: int,
    truth: str,
    recorded: str,
    caught: str,
    defect: str = "bug",
    source: str = "claude",
) -> HitSpec:
    return HitSpec(base, lesson, week, truth, recorded, caught, defect, source)


_YES, _NO = "yes", "no"

HITS: tuple[HitSpec, ...] = (
    # atlas: L-0001 is the workhorse; one recorded `no` contradicts a transcript that recalled it.
    _h("atlas", "L-0001", 1, "recalled", _YES, "gate"),
    _h("atlas", "L-0001", 2, "none", _NO, "human"),
    _h("atlas", "L-0001", 2, "recalled", _YES, "ci"),
    _h("atlas", "L-0001", 3, "recalled", _NO, "gate"),
    _h("atlas", "L-0001", 3, "none", "unknown", "human", source="unknown"),
    _h("atlas", "L-0001", 4, "index", _NO, "gate"),
    _h("atlas", "L-0001", 5, "recalled", _YES, "reviewer"),
    _h("atlas", "L-0001", 6, "none", _NO, "human"),
    _h("atlas", "L-0001", 7, "recalled", _YES, "gate"),
    _h("atlas", "L-0001", 8, "none", _YES, "ci"),
    _h("atlas", "L-0002", 2, "recalled", _YES, "gate", defect="form-only"),
    # L-0002's failure stopped: the two lines that look like hits are form-only, so over the
    # whole demo it has no hit at all (effect: retire candidate).
    _h("atlas", "L-0002", 4, "none", _NO, "ci", defect="form-only"),
    _h("atlas", "L-0002", 7, "recalled", _YES, "self", defect="form-only"),
    _h("atlas", "L-0002", 8, "none", "unknown", "human", defect="none", source="none"),
    # L-0003 keeps failing although it is recalled: prose does not hold.
    _h("atlas", "L-0003", 2, "recalled", _YES, "gate"),
    _h("atlas", "L-0003", 4, "recalled", _YES, "human"),
    _h("atlas", "L-0003", 6, "recalled", _NO, "reviewer"),
    # L-0004 is never recalled when it fails: its triggers miss the task wording.
    _h("atlas", "L-0004", 1, "none", _NO, "human"),
    _h("atlas", "L-0004", 3, "none", _NO, "ci"),
    _h("atlas", "L-0004", 5, "index", _YES, "gate"),
    _h("atlas", "L-0004", 6, "none", "unknown", "human", source="unknown"),
    _h("atlas", "L-0005", 2, "none", _NO, "human"),
    _h("atlas", "L-0005", 5, "recalled", _YES, "gate", defect="data-loss"),
    _h("atlas", "L-0006", 3, "none", _NO, "human"),
    _h("atlas", "L-0006", 6, "recalled", _YES, "ci"),
    _h("atlas", "L-0007", 6, "index", _NO, "judge"),
    # L-0008: a candidate with three independent hits (one from Codex) waits for a verdict.
    _h("atlas", "L-0008", 5, "none", _NO, "human"),
    _h("atlas", "L-0008", 6, "none", _NO, "ci"),
    _h("atlas", "L-0008", 7, "none", _NO, "gate", source="codex"),
    _h("atlas", "L-0012", 3, "recalled", _YES, "reviewer"),
    _h("atlas", "L-0012", 5, "none", _NO, "reviewer", defect="form-only"),
    _h("atlas", "L-0012", 6, "index", _NO, "human"),
    _h("atlas", "L-0014", 6, "none", _NO, "gate"),
    _h("atlas", "L-0014", 7, "none", _NO, "human"),
    # harbor (repo base)
    _h("harbor", "L-0101", 1, "recalled", _YES, "gate"),
    _h("harbor", "L-0101", 2, "none", _NO, "ci"),
    _h("harbor", "L-0101", 3, "index", _NO, "human"),
    _h("harbor", "L-0101", 5, "none", _NO, "gate"),
    _h("harbor", "L-0101", 6, "none", _YES, "ci"),
    _h("harbor", "L-0101", 7, "recalled", _YES, "gate"),
    _h("harbor", "L-0101", 8, "none", "unknown", "human", source="unknown"),
    _h("harbor", "L-0102", 2, "recalled", _YES, "ci"),
    _h("harbor", "L-0102", 5, "none", _NO, "ci", source="codex"),
    _h("harbor", "L-0103", 4, "none", _NO, "human"),
    _h("harbor", "L-0104", 1, "none", _NO, "reviewer", defect="form-only"),
    _h("harbor", "L-0104", 3, "none", _NO, "reviewer", defect="form-only"),
    _h("harbor", "L-0104", 4, "recalled", _YES, "human", defect="none"),
    _h("harbor", "L-0104", 6, "none", _NO, "reviewer"),
    _h("harbor", "L-0106", 2, "none", _NO, "ci"),
    _h("harbor", "L-0106", 3, "none", _NO, "ci"),
    # harbor/services/api (sub-project base)
    _h("api", "L-0201", 3, "recalled", _YES, "gate", defect="data-loss"),
    _h("api", "L-0201", 6, "recalled", _YES, "ci"),
    _h("api", "L-0202", 2, "none", _NO, "human", defect="wrong-number"),
    _h("api", "L-0202", 5, "none", _NO, "human", defect="wrong-number"),
    _h("api", "L-0203", 4, "recalled", _YES, "gate"),
    _h("api", "L-0203", 7, "index", _NO, "human"),
    _h("api", "L-0205", 6, "none", "unknown", "human", defect="wrong-number", source="none"),
    # atlas L-0006 (a candidate until week 4) failed in a third of the sessions before it
    # became active and once after (effect: helps). Last, so the hits above keep their
    # sessions.
    *(
        _h("atlas", "L-0006", week, "none", _NO, caught)
        for week in (1, 2, 3)
        for caught in ("human", "ci", "gate", "reviewer", "human")
    ),
)

# Lessons whose declared `evidence.hits` the judge forgot to update (a lint finding).
STALE_EVIDENCE = frozenset({("atlas", "L-0004"), ("harbor", "L-0101")})

# Quarantine observations: (base, week, weekday, signal, mechanism).
QUARANTINE: tuple[tuple[str, int, int, str, str], ...] = (
    ("atlas", 2, 2, 'agent reported "render fixed" from a single tile', "verify-before-report"),
    ("atlas", 4, 1, "bench numbers compared across different zoom levels", "wrong-number"),
    ("atlas", 5, 3, "docs build skipped before a release note", "process-shortcut"),
    ("harbor", 3, 2, "i18n key added in one locale only", "docs-drift"),
    ("harbor", 6, 0, "storybook story left pointing at a removed prop", "stale-state"),
    ("api", 4, 3, "background job enqueued inside a transaction", "data-loss"),
    ("api", 7, 1, "перепутаны коды ошибок 409 и 422", "wrong-number"),
)
