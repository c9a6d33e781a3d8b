"""A hand-worked workspace for ``effect``: one git base, 80 sessions, five lessons.

Sessions s0..s79 run in `proj` (all belong to the base), s_i starting at
2026-10-01T10:00Z + 6 h * i and lasting 40 minutes; a hit is at start + 30 min, a body read
(recall) at start + 1 min, so a read always comes before the miss.

Commits of `proj`:
  C0 2026-09-30T09:00  the base: L-0001..L-0004 candidates, L-0005 active (born active)
  C1 2026-10-11T09:00  L-0001, L-0002, L-0003 promoted (s40 is the first session after)
  H  2026-10-12T12:00  `.claude/hooks/session-start.sh` edited: 5 sessions (s40..s44)
                       after C1, fewer than the 20-session window: C1 and H are one
                       confounded group
  C2 2026-10-20T03:00  L-0004 promoted (s75 is the first session after; 30 sessions after H)
  J  2026-10-21T12:00  the judge writes every journal (no status changes)

Lessons and the answers worked out by hand (rate = hit sessions / exposed sessions):
  L-0001 helps: before s0..s39 with hits in s0..s19 = 20/40; after s40..s79 with hits in
         s40..s43 = 4/40. Halving 0.5 needs ceil(((1.6449+0.8416)/h)^2) with
         h = 2 asin(sqrt .5) - 2 asin(sqrt .25) = 0.5236: 23 sessions; 40 >= 23, Fisher
         p < 0.001 -> `helps`. Its file says helped: false -> helped-disagrees.
  L-0002 does not help: 20/40 (s20..s39) before, 20/40 (s44..s63) after, never recalled
         -> `not surfaced`.
  L-0003 fails while recalled: 20/40 (s10..s29) before; after, s40..s49 read its body
         (10 recalled sessions) and s40..s47 still failed (8); s50..s57 failed unrecalled
         (8 of 30) -> 16/40 after, not a significant fall; recalled 8/10 is not below
         8/30 -> `not holding`. Its file says helped: true -> helped-disagrees.
  L-0004 too few sessions: before s0..s74 with hits every 5th session (s0, s5, .., s70)
         = 15/75 = 0.2; after s75..s79, 0/5. A halving of 0.2 needs 77 sessions
         (h = 0.28380): 72 more -> `insufficient evidence`.
  L-0005 retire candidate: active since C0, no hit in 80 sessions (>= 30 in the 60-day
         window) -> `retire candidate`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.basebuilder import commit, git, index_text, lesson_text
from tests.support.transcripts import ClaudeSession, numbered, reset_ids

START = datetime(2026, 10, 1, 10, 0, tzinfo=UTC)
N_SESSIONS = 80
C0, C1, H, C2, J = ("2026-09-30T09:00:00Z", "2026-10-11T09:00:00Z", "2026-10-12T12:00:00Z",
                    "2026-10-20T03:00:00Z", "2026-10-21T12:00:00Z")  # fmt: skip

# lesson -> sessions with a hit; L-0003's recalled sessions are READS
HITS: dict[str, list[int]] = {
    "L-0001": [*range(0, 20), *range(40, 44)],
    "L-0002": [*range(20, 40), *range(44, 64)],
    "L-0003": [*range(10, 30), *range(40, 48), *range(50, 58)],
    "L-0004": list(range(0, 75, 5)),
    "L-0005": [],
}
READS: dict[str, list[int]] = {"L-0003": list(range(40, 50))}
HELPED = {"L-0001": "false", "L-0003": "true"}
FILES = {lid: f"LESSONS/{lid}.md" for lid in HITS}


def sid(i: int) -> str:
    return f"e0000000-0000-4000-8000-{i:012d}"


def stamp(i: int, minutes: int) -> str:
    return (START + timedelta(hours=6 * i, minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _journal(lid: str) -> list[str]:
    return [
        f"- {stamp(i, 30)[:10]} · what: the failure again · caught: gate · defect: bug"
        f" · session: {sid(i)} · ts: {stamp(i, 30)}"
        for i in HITS[lid]
    ]


def _lesson(lid: str, status: str, journal: bool) -> str:
    helped = HELPED.get(lid, "null")
    return lesson_text(lid, status=status, hits=_journal(lid) if journal else (),
                       extra_fm=f"evidence:\n  helped: {helped}")  # fmt: skip


def _statuses(active: set[str], journal: bool = False) -> dict[str, str | bytes | None]:
    files: dict[str, str | bytes | None] = {
        FILES[lid]: _lesson(lid, "active" if lid in active else "candidate", journal)
        for lid in HITS
    }
    files["LESSONS/INDEX.md"] = index_text(
        active=sorted(active), candidates=sorted(set(HITS) - active)
    )
    return files


@dataclass
class EffectScenario:
    project: Path
    base: Path
    projects: Path


def build(root: Path) -> EffectScenario:
    reset_ids()
    project = root / "proj"
    project.mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    hook = ".claude/hooks/session-start.sh"
    commit(project, C0, {**_statuses({"L-0005"}), hook: "cat LESSONS/INDEX.md\n"})
    commit(project, C1, _statuses({"L-0001", "L-0002", "L-0003", "L-0005"}))
    commit(project, H, {hook: "cat LESSONS/INDEX.md\nls LESSONS\n"})
    after_c2 = {"L-0001", "L-0002", "L-0003", "L-0004", "L-0005"}
    commit(project, C2, _statuses(after_c2))
    commit(project, J, _statuses(after_c2, journal=True))
    projects = root / "claude" / "projects"
    for i in range(N_SESSIONS):
        _session(projects / "-proj", str(project), i)
    return EffectScenario(project, project / "LESSONS", projects)


def _session(folder: Path, cwd: str, i: int) -> None:
    s = ClaudeSession(folder, sid(i), cwd)
    s.prompt(stamp(i, 0), "fix the failing report")
    for lid, sessions in READS.items():
        if i in sessions:
            call = s.read(stamp(i, 1), f"{cwd}/{FILES[lid]}")
            s.result(call, stamp(i, 1), numbered("Rule: run the command first."))
    s.prompt(stamp(i, 40), "thanks")
    s.write()
