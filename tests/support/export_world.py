"""The scenario of ``scenario.py`` plus one session S8 that the exports need and the
metric tests do not: a failed call, a rejected call, one call reading two lesson bodies
and a Read of the first five lines of a lesson (a partial read).

S8 2026-11-14 (cwd = proj, Claude Code 2.1.114):
  10:01 Bash curl with a Bearer token -> error result (no exit code): error.type tool_error
  10:02 Bash cat L-0001 and L-0002   -> two body reads in one call, both whole
  10:03 Bash rm -rf build            -> rejected by the user
  10:04 Read L-0001 limit 5          -> lines 1-5 delivered: partial ('range')
"""

from __future__ import annotations

from pathlib import Path

from lessons_analytics.ingestion import ingest
from tests.support import scenario
from tests.support.transcripts import ClaudeSession, numbered

S8 = "88888888-8888-4888-8888-888888888888"
SECRET = "abcdef1234567890"
REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected."


def build(root: Path) -> tuple[scenario.Scenario, Path]:
    """The scenario with S8, ingested into ``root/w.duckdb``."""
    built = scenario.build(root)
    cwd = str(built.project)
    s = ClaudeSession(built.projects / "-proj", S8, cwd, version="2.1.114")
    s.prompt("2026-11-14T10:00:00Z", "fetch and clean")
    call = s.bash(
        "2026-11-14T10:01:00Z", f"curl -H 'Authorization: Bearer {SECRET}' https://x.test"
    )
    s.result(call, "2026-11-14T10:01:02Z", "curl: (6) Could not resolve host", is_error=True)
    call = s.bash("2026-11-14T10:02:00Z", "cat LESSONS/L-0001-skipped-tests.md LESSONS/L-0002.md")
    s.result(call, "2026-11-14T10:02:01Z", built.lesson1 + "\n" + built.lesson2)
    call = s.bash("2026-11-14T10:03:00Z", "rm -rf build")
    s.result(call, "2026-11-14T10:03:01Z", REJECTED, is_error=True)
    call = s.read("2026-11-14T10:04:00Z", f"{cwd}/LESSONS/L-0001-skipped-tests.md", limit=5)
    s.result(call, "2026-11-14T10:04:01Z", numbered("\n".join(built.lesson1.splitlines()[:5])))
    s.prompt("2026-11-14T10:05:00Z", "done")
    s.write()
    db = root / "w.duckdb"
    report = ingest(db, [built.projects, built.codex])
    assert report.document()["load_errors"] == 0, report.document()["errors"]
    return built, db
