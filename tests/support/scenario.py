"""A small, fully hand-worked workspace: one git base, six sessions, every metric.

The base `proj/LESSONS` has two INDEX.md versions:
  v1 (2026-11-02): 13 lines, `## Active` at line 4, active rows L-0001 (7), L-0002 (8);
  v2 (2026-11-09): 40 note lines added, `## Active` at 44, rows at 47 and 48, 53 lines.

Sessions (cwd = proj, so all belong to the base):
  S1 2026-11-03 (v1): head -40 INDEX.md (sees 2/2); Read L-0001 10:05; miss 10:30.
  S2 2026-11-10 (v2): head -40 (blind); cat cut by the harness to lines 1-30 and 50-53
      (blind); grep -n L-0001 (sees 1/2: truncated); miss of L-0001 at 10:30 -> index_only.
  S4 2026-11-11 (v2): Read INDEX.md offset 50 limit 10 (blind); miss of L-0001 at 11:00;
      Read L-0001 at 11:30 (after the miss: not recalled for the hit, recalled for coverage).
  S5 2026-11-12: a 2.1.x subagent cats L-0002 (a fat body) at 10:20; miss at 10:40 ->
      recalled; `make test` 10:50 -> 10:52 (120 s) and one at 11:00 with no result.
  S6 2026-11-12: resumes S1: its file replays S1's first three lines (same uuids), then
      runs `ls` — the replayed head read must not count twice.
  S7 2026-11-13 (Codex): sed -n '1,60p' INDEX.md (prefix read, sees 2/2); `make test`
      with a recorded wall time of 300 s (call and output 10 s apart: the record wins).
Hits of L-0001: S1 recalled, S2 index_only (recorded yes: disagreement), S3 (no transcript)
unknown, no-session unknown, a form-only line (not a hit), S4 not_recalled. L-0002: S5
recalled (recorded no: disagreement).
"""

# ruff: noqa: E501  (journal lines are data, kept whole so they read like a real base)
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.support.basebuilder import commit, git
from tests.support.transcripts import ClaudeSession, CodexRollout, numbered, reset_ids

S1 = "11111111-1111-4111-8111-111111111111"
S2 = "22222222-2222-4222-8222-222222222222"
S3 = "33333333-3333-4333-8333-333333333333"
S4 = "44444444-4444-4444-8444-444444444444"
S5 = "55555555-5555-4555-8555-555555555555"
S6 = "66666666-6666-4666-8666-666666666666"
S7 = "77777777-7777-4777-8777-777777777777"
AGENT = "a1b2c3d"

ROWS = [
    "| L-0001 | all-agents | test, make | tests skipped before commit |",
    "| L-0002 | all-agents | report | state reported from memory |",
]
TABLE = ["| id | addressee | triggers | target |", "|---|---|---|---|"]
CANDIDATE = "| L-0003 | executor | board | board not refreshed |"


def index_v1() -> list[str]:
    return ["# Lessons: proj", "Read the rows that match your task.", "", "## Active", *TABLE,
            *ROWS, "", "## Candidates", *TABLE, CANDIDATE]  # fmt: skip


def index_v2() -> list[str]:
    notes = [f"Note {n}: keep this index light." for n in range(1, 41)]
    v1 = index_v1()
    return v1[:2] + notes + v1[2:]


def _lesson(lid: str, status: str, cls: str, hits: list[str], extra: str = "", pad: int = 0) -> str:
    why = (
        "Why: " + ("the suite was skipped and the bug shipped. " * pad)
        if pad
        else "Why: it shipped."
    )
    lines = ["---", f"id: {lid}", "addressee: all-agents", "trigger: [test, make]",
             'scope: "committing code"', f'target: "{lid} target"', f"class: {cls}",
             f"status: {status}", "created: 2026-11-01", *([extra] if extra else []),
             "evidence:", "  helped: null", "---",
             "Rule: instead of committing straight away, run `make test` first.", why, ""]  # fmt: skip
    if hits:
        lines += ["## Hits", *hits, ""]
    return "\n".join(lines)


L1_HITS = [
    f"- 2026-11-03 · what: skipped tests · caught: gate · recalled: yes · defect: bug · session: {S1} · ts: 2026-11-03T10:30:00Z",
    f"- 2026-11-10 · what: skipped again · caught: human · recalled: yes · defect: bug · session: {S2} · ts: 2026-11-10T10:30:00Z",
    f"- 2026-11-10 · what: elsewhere · caught: gate · recalled: unknown · defect: bug · session: {S3}",
    "- 2026-11-11 · what: no session named · caught: ci · defect: bug",
    "- 2026-11-11 · what: wrong heading · caught: judge · defect: form-only",
    f"- 2026-11-11 · what: skipped once more · caught: human · recalled: no · defect: bug · session: {S4} · ts: 2026-11-11T11:00:00Z",
]  # fmt: skip
L2_HITS = [
    f"- 2026-11-12 · what: number from memory · caught: gate · recalled: no · defect: wrong-number · session: {S5} · ts: 2026-11-12T10:40:00Z",
]  # fmt: skip


@dataclass
class Scenario:
    root: Path
    project: Path
    base: Path
    projects: Path
    codex: Path
    lesson1: str
    lesson2: str
    sessions: dict[str, ClaudeSession | CodexRollout]


def build(root: Path) -> Scenario:
    reset_ids()
    project = root / "proj"
    project.mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    lesson1 = _lesson("L-0001", "active", "verify-before-report", L1_HITS, 'ritual: "^make test"')
    lesson2 = _lesson("L-0002", "active", "report-format", L2_HITS, pad=520)
    lesson3 = _lesson("L-0003", "candidate", "board", [])
    commit(project, "2026-11-02T09:00:00Z", {
        "LESSONS/INDEX.md": "\n".join(index_v1()) + "\n",
        "LESSONS/L-0001-skipped-tests.md": lesson1,
        "LESSONS/L-0002.md": lesson2,
        "LESSONS/L-0003.md": lesson3,
    })  # fmt: skip
    commit(project, "2026-11-09T09:00:00Z", {"LESSONS/INDEX.md": "\n".join(index_v2()) + "\n"})
    projects = root / "claude" / "projects"
    folder = projects / "-proj"
    cwd = str(project)
    sessions: dict[str, ClaudeSession | CodexRollout] = {}
    sessions["S1"] = _s1(folder, cwd, lesson1)
    sessions["S2"] = _s2(folder, cwd)
    sessions["S4"] = _s4(folder, cwd, lesson1)
    sessions["S5"], sessions["S5-agent"] = _s5(folder, cwd, lesson2)
    sessions["S6"] = _s6(folder, cwd, sessions["S1"])  # type: ignore[arg-type]
    codex = root / "codex" / "sessions"
    sessions["S7"] = _s7(codex, cwd)
    return Scenario(root, project, project / "LESSONS", projects, codex, lesson1, lesson2, sessions)


def _s1(folder: Path, cwd: str, lesson1: str) -> ClaudeSession:
    s = ClaudeSession(folder, S1, cwd, version="1.0.51")
    s.prompt("2026-11-03T10:00:00Z", "commit the fix")
    call = s.bash("2026-11-03T10:00:05Z", "head -40 LESSONS/INDEX.md")
    s.result(call, "2026-11-03T10:00:06Z", "\n".join(index_v1()))
    call = s.read("2026-11-03T10:05:00Z", f"{cwd}/LESSONS/L-0001-skipped-tests.md")
    s.result(call, "2026-11-03T10:05:01Z", numbered(lesson1))
    s.prompt("2026-11-03T10:31:00Z", "thanks")
    s.write()
    return s


def _s2(folder: Path, cwd: str) -> ClaudeSession:
    v2 = index_v2()
    s = ClaudeSession(folder, S2, cwd)
    s.prompt("2026-11-10T10:00:00Z", "what are the rules?")
    call = s.bash("2026-11-10T10:00:05Z", "head -40 LESSONS/INDEX.md")
    s.result(call, "2026-11-10T10:00:06Z", "\n".join(v2[:40]))
    call = s.bash("2026-11-10T10:05:00Z", f"cat {cwd}/LESSONS/INDEX.md")
    cut = "\n".join(v2[:30]) + "\n\n... [1200 characters truncated] ...\n\n" + "\n".join(v2[49:])
    s.result(call, "2026-11-10T10:05:01Z", cut)
    call = s.bash("2026-11-10T10:10:00Z", "grep -n 'L-0001' LESSONS/INDEX.md")
    s.result(call, "2026-11-10T10:10:01Z", f"47:{ROWS[0]}")
    s.prompt("2026-11-10T10:35:00Z", "ok")
    s.write()
    return s


def _s4(folder: Path, cwd: str, lesson1: str) -> ClaudeSession:
    v2 = index_v2()
    s = ClaudeSession(folder, S4, cwd, version="2.1.114")
    s.prompt("2026-11-11T10:00:00Z", "commit")
    call = s.read("2026-11-11T10:10:00Z", f"{cwd}/LESSONS/INDEX.md", offset=50, limit=10)
    s.result(call, "2026-11-11T10:10:01Z", numbered("\n".join(v2[49:]), 50, "\t"))
    call = s.read("2026-11-11T11:30:00Z", f"{cwd}/LESSONS/L-0001-skipped-tests.md")
    s.result(call, "2026-11-11T11:30:01Z", numbered(lesson1, 1, "\t"))
    s.write()
    return s


def _s5(folder: Path, cwd: str, lesson2: str) -> tuple[ClaudeSession, ClaudeSession]:
    s = ClaudeSession(folder, S5, cwd, version="2.1.114")
    s.prompt("2026-11-12T10:00:00Z", "report the numbers")
    spawn = s.tool(
        "2026-11-12T10:15:00Z",
        "Agent",
        {"description": "scout", "prompt": "find the lessons", "subagent_type": "scout"},
    )
    agent = ClaudeSession(folder, S5, cwd, version="2.1.114", agent_id=AGENT)
    agent.prompt("2026-11-12T10:15:30Z", "find the lessons")
    call = agent.bash("2026-11-12T10:20:00Z", "cat LESSONS/L-0002.md")
    agent.result(call, "2026-11-12T10:20:01Z", lesson2)
    agent.write()
    meta = agent.path().with_suffix("").with_suffix(".meta.json")
    meta.write_text(f'{{"agentType":"scout","description":"scout","toolUseId":"{spawn}"}}')
    s.result(spawn, "2026-11-12T10:25:00Z", f"done\nagentId: {AGENT}")
    call = s.bash("2026-11-12T10:50:00Z", "make test")
    s.result(call, "2026-11-12T10:52:00Z", "ok")
    s.bash("2026-11-12T11:00:00Z", "cd . && make test -k")
    s.write()
    return s, agent


def _s6(folder: Path, cwd: str, resumed: ClaudeSession) -> ClaudeSession:
    s = ClaudeSession(folder, S6, cwd, version="1.0.51")
    s._last = resumed.lines[2]["uuid"]
    s.prompt("2026-11-12T12:00:00Z", "continue")
    call = s.bash("2026-11-12T12:01:00Z", "ls")
    s.result(call, "2026-11-12T12:01:02Z", "LESSONS")
    s.write(replay=resumed.lines[:3])
    return s


def _s7(codex: Path, cwd: str) -> CodexRollout:
    r = CodexRollout(codex, S7, cwd, "2026-11-13T09:00:00Z")
    r.user("2026-11-13T09:00:01Z", "run the checks")
    r.exec(
        "2026-11-13T09:01:00Z",
        "sed -n '1,60p' LESSONS/INDEX.md",
        "2026-11-13T09:01:01Z",
        "\n".join(index_v2()) + "\n",
        0.05,
    )
    r.shell_command("2026-11-13T09:10:00Z", "make test", "2026-11-13T09:10:10Z", "ok", 300.0)
    r.write()
    return r


def ingested(root: Path) -> Path:
    """The scenario built under ``root`` and ingested into ``root/w.duckdb``."""
    from lessons_analytics.ingestion import ingest

    built = build(root)
    db = root / "w.duckdb"
    ingest(db, [built.projects, built.codex])
    return db
