"""A deterministic demo workspace: lesson bases with git history, Claude Code and Codex transcripts.

ws = build_demo(Path("/tmp/demo"))
ws.claude_projects  # shaped like ~/.claude/projects
ws.codex_sessions   # shaped like ~/.codex/sessions
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from .bases import write_git
from .guard import check_demo_target, mark_demo_build
from .timeline import (
    assign_hits,
    code_commits,
    evening,
    make_world,
    mark_specials,
    morning,
    run_day,
    schedule,
)
from .util import FIRST_DAY, LAST_DAY, WEEKS

__all__ = ["DemoWorkspace", "build_demo"]


@dataclass(frozen=True)
class DemoWorkspace:
    root: Path
    claude_projects: Path
    codex_sessions: Path
    repos: list[Path]
    bases: list[Path]
    first_day: date
    last_day: date

    @property
    def sources(self) -> list[Path]:
        """The transcript folders, as ``ingest`` takes them."""
        return [self.claude_projects, self.codex_sessions]


def build_demo(out: Path, seed: int = 42) -> DemoWorkspace:
    """Build the demo under `out` (replacing what a previous build left there); refused
    (``DemoTargetRefused``) when `out` is neither empty nor an earlier build."""
    root = Path(out).absolute()
    check_demo_target(root)  # before anything is deleted
    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    mark_demo_build(root)
    for sub in ("claude", "codex", "repos"):
        shutil.rmtree(root / sub, ignore_errors=True)
    claude_dir, codex_dir = root / "claude" / "projects", root / "codex" / "sessions"
    claude_dir.mkdir(parents=True)
    codex_dir.mkdir(parents=True)
    world = make_world(root, random.Random(seed))
    schedule(world)
    loose = assign_hits(world)
    mark_specials(world)
    for n in range(WEEKS * 7):
        day = FIRST_DAY + timedelta(days=n)
        morning(world, day)
        code_commits(world, day)
        done = run_day(world, day, claude_dir, codex_dir)
        evening(world, day, done, loose)
    for repo in world.repos.values():
        write_git(repo)
    return DemoWorkspace(
        root,
        claude_dir,
        codex_dir,
        [r.root for r in world.repos.values()],
        [b.path for b in world.bases.values()],
        FIRST_DAY,
        LAST_DAY,
    )
