"""What each session does, as a runtime-neutral list of actions; the writers render them.

Reads of LESSONS files carry the exact text of the file version at planning time (sessions are
planned in time order, so that is the version committed when the session ran).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from . import shell
from .bases import Base, Repo
from .scenario import HitSpec
from .util import lines_of


@dataclass
class Sub:
    agent_type: str
    description: str
    prompt: str
    acts: list[Act]
    final: str


@dataclass
class Act:
    kind: str  # prompt | say | bash | read | edit | spawn | hook | interrupt
    text: str = ""  # prompt/say text, bash command, hook text
    path: str = ""  # absolute path for read/edit
    output: str = ""  # bash stdout, edit old/new joined by \0
    lines: tuple[str, ...] = ()  # read: the delivered lines
    start: int = 1
    total: int = 0
    offset: int | None = None
    limit: int | None = None
    seconds: float = 1.5
    error: bool = False
    result: str = "ok"  # ok | none | reject | interrupt
    mark: str = ""  # a miss: the writer records this act's timestamp under the key
    sub: Sub | None = None
    ritual: bool = False


@dataclass
class Session:
    sid: str
    agent: str  # claude | codex
    version: str
    start: datetime
    cwd: Path
    project: str
    lang: str
    repo: Repo
    bases: list[Base] = field(default_factory=list)
    hits: list[HitSpec] = field(default_factory=list)
    acts: list[Act] = field(default_factory=list)
    marks: dict[str, str] = field(default_factory=dict)
    end: datetime | None = None
    resume_of: Session | None = None
    no_result_commit: bool = False
    file: Path | None = None
    extras: set[str] = field(default_factory=set)
    miss_info: dict[str, tuple[str, str]] = field(default_factory=dict)
    forced: list[str] = field(default_factory=list)  # user lines this session must contain

    @property
    def era(self) -> str:
        return self.version[:3] if self.agent == "claude" else "codex"


def _rel(s: Session, target: Path) -> str:
    return os.path.relpath(target, s.cwd)


def read_file_act(
    s: Session, path: Path, text: str, offset: int | None = None, limit: int | None = None
) -> Act:
    rows = lines_of(text)
    first = offset or 1
    last = len(rows) if limit is None else min(len(rows), first - 1 + limit)
    return Act(
        "read",
        path=str(path),
        lines=tuple(rows[first - 1 : last]),
        start=first,
        total=len(rows),
        offset=offset,
        limit=limit,
        seconds=0.05,
    )


def index_read(rng: random.Random, s: Session, base: Base, whole: bool = False) -> Act:
    text = base.index_text()
    path = base.path / "INDEX.md"
    rows = lines_of(text)
    if whole:
        if s.agent == "claude" and rng.random() < 0.5:
            return read_file_act(s, path, text)
        return Act("bash", text=f"cat {_rel(s, path)}", output=text.rstrip("\n"), seconds=0.03)
    roll = rng.random()
    if s.agent == "claude" and roll < 0.22:
        return read_file_act(s, path, text)
    if s.agent == "claude" and roll < 0.32:
        return read_file_act(s, path, text, limit=rng.choice((40, 50, 60)))
    if s.agent == "claude" and roll < 0.345 and "## Candidates" in rows:
        # Paging on from where a previous read stopped lands past the Active table.
        return read_file_act(s, path, text, offset=rows.index("## Candidates") + 1, limit=40)
    if s.agent == "codex" and roll < 0.25:
        return Act(
            "bash",
            text=f"nl -ba {_rel(s, path)} | sed -n '1,80p'",
            output=shell.nl_ba(text, 1, 80),
            seconds=0.04,
        )
    cmd, out = shell.index_command(rng, _rel(s, path), text, str(base.path.parent))
    return Act("bash", text=cmd, output=out, seconds=0.03)


def saw_active(act: Act, base: Base) -> bool:
    """Did this read deliver at least one row of the Active table?"""
    seen = "\n".join(act.lines) if act.kind == "read" else act.output
    active = [ln for ln in _active_rows(base.index_text())]
    return any(row.split(" | ")[0] in seen for row in active)


def _active_rows(text: str) -> list[str]:
    rows = lines_of(text)
    start = rows.index("## Active") + 3
    out = []
    for ln in rows[start:]:
        if not ln.startswith("| L-"):
            break
        out.append(ln)
    return out


def body_read(rng: random.Random, s: Session, base: Base, lid: str) -> Act:
    rel = base.lesson_rel(lid)
    text = base.repo.files[rel]
    path = base.repo.root / rel
    if s.agent == "claude" and rng.random() < 0.7:
        return read_file_act(s, path, text)
    if s.agent == "codex" and rng.random() < 0.5:
        return Act(
            "bash",
            text=f"sed -n '1,200p' {_rel(s, path)}",
            output=shell.sed_range(text, 1, 200),
            seconds=0.04,
        )
    return Act("bash", text=f"cat {_rel(s, path)}", output=text.rstrip("\n"), seconds=0.03)


def check_cmd(s: Session) -> str:
    if s.project == "atlas":
        return "uv run check"
    if s.project == "harbor/services/api":
        return "make test"
    if s.project == "sandbox":
        return "uv run pytest -q"
    return "make check"


def check_act(rng: random.Random, s: Session, ok: bool = True, failure: str = "") -> Act:
    cmd = check_cmd(s)
    low, high = {"uv run check": (95, 240), "make test": (25, 90), "make check": (240, 360)}.get(
        cmd, (20, 40)
    )
    out = shell.check_output(rng, s.project, ok, failure)
    return Act(
        "bash",
        text=cmd,
        output=out,
        seconds=rng.uniform(low, high),
        error=not ok,
        ritual=cmd != "uv run pytest -q",
    )


def commit_act(rng: random.Random, s: Session, message: str, flags: str = "") -> Act:
    cmd = f'git commit {flags}-m "{message}"' if flags else f'git commit -am "{message}"'
    seconds = rng.uniform(12, 25) if "--no-verify" in flags else rng.uniform(80, 360)
    return Act(
        "bash",
        text=cmd,
        output=shell.commit_output(rng, message, s.project),
        seconds=seconds,
        ritual=True,
    )


def edit_act(s: Session, rel: str, old: str, new: str, mark: str = "") -> Act:
    return Act("edit", path=str(s.cwd / rel), output=f"{old}\0{new}", seconds=0.2, mark=mark)
