"""Lesson bases as evolving file trees, rendered to text and written as real git history.

A `Repo` holds the current files and every commit's snapshot; a `Base` holds the lesson state
(statuses, notes, journals) and renders LESSONS/ into its repo. Git is written at the end with
`git fast-import`, which takes explicit dates, so the SHAs are stable.
"""

from __future__ import annotations

import os
import random
import subprocess
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from .lessons_data import BaseSpec, LessonSpec
from .util import at, iso_s, new_uuid

JUDGE = ("Lessons Judge", "judge@harbor-atlas.example")
PEOPLE = {
    "atlas": ("Dana Ortiz", "dana@harbor-atlas.example"),
    "harbor": ("Kirill Sokolov", "kirill@harbor-atlas.example"),
    "sandbox": ("Dana Ortiz", "dana@harbor-atlas.example"),
}


@dataclass
class Commit:
    when: datetime
    message: str
    author: tuple[str, str]
    files: dict[str, str]


@dataclass
class Repo:
    name: str
    root: Path
    files: dict[str, str]
    commits: list[Commit] = field(default_factory=list)

    def commit(self, when: datetime, message: str, author: tuple[str, str] = JUDGE) -> None:
        # Commits are kept in time order; a snapshot is a shallow copy of the path -> text map.
        assert not self.commits or when > self.commits[-1].when, (self.name, message)
        self.commits.append(Commit(when, message, author, dict(self.files)))


@dataclass
class Base:
    spec: BaseSpec
    repo: Repo
    status: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    journals: dict[str, list[str]] = field(default_factory=dict)
    quarantine: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    relaid: bool = False
    marker: str = ""

    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def dir(self) -> str:
        return self.spec.prefix + "LESSONS/"

    @property
    def path(self) -> Path:
        return self.repo.root / self.dir.rstrip("/")

    def lesson(self, lid: str) -> LessonSpec:
        return next(x for x in self.spec.lessons if x.id == lid)

    def lesson_rel(self, lid: str) -> str:
        spec = self.lesson(lid)
        return f"{self.dir}{spec.id}-{spec.slug}.md"

    def index_text(self) -> str:
        return self.repo.files[self.dir + "INDEX.md"]

    def render(self, stale: frozenset[tuple[str, str]]) -> None:
        files = self.repo.files
        files[self.dir + "INDEX.md"] = render_index(self)
        files[self.dir + "QUARANTINE.md"] = "# Quarantine\n" + "".join(
            q + "\n" for q in self.quarantine
        )
        files[self.dir + "RETIRED.md"] = "# Retired\n" + "".join(r + "\n" for r in self.retired)
        if self.relaid:
            files[self.dir + "NOTES.md"] = "# Notes\n\n" + "".join(f"- {n}\n" for n in self.notes)
        for lid, status in self.status.items():
            journal = self.journals.setdefault(lid, [])
            counted = [
                j for j in journal if "defect: form-only" not in j and "defect: none" not in j
            ]
            declared = len(counted)
            if (self.key, lid) in stale:
                declared = self.lesson(lid).old_hits  # the judge stopped updating it
            files[self.lesson_rel(lid)] = render_lesson(self.lesson(lid), status, journal, declared)


def _yaml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_lesson(spec: LessonSpec, status: str, journal: list[str], declared: int) -> str:
    ru = spec.lang == "ru"
    front = [
        "---",
        f"id: {spec.id}",
        f"addressee: {spec.addressee}",
        f"trigger: [{', '.join(spec.triggers)}]",
        f"scope: {_yaml_str(spec.scope)}",
        f"target: {_yaml_str(spec.target)}",
        f"class: {spec.cls}",
        f"status: {status}",
        f"created: {spec.created}",
    ]
    if spec.ritual:
        front.append(f"ritual: {_yaml_str(spec.ritual)}")
    front += ["evidence:", f"  hits: {declared}", f"  helped: {spec.helped}", "---"]
    rule, why = ("Правило:", "Почему:") if ru else ("Rule:", "Why:")
    body = [f"# {spec.title}", "", f"{rule} {spec.rule}", "", f"{why} {spec.why}", ""]
    if spec.extra:
        body += [spec.extra.rstrip("\n"), ""]
    body.append("## Журнал повторов" if ru else "## Hits")
    return "\n".join(front + body + journal) + "\n"


def _table(base: Base, status: str) -> list[str]:
    rows = ["| id | addressee | triggers | target |", "|---|---|---|---|"]
    for spec in base.spec.lessons:
        if base.status.get(spec.id) == status:
            rows.append(
                f"| {spec.id} | {spec.addressee} | {', '.join(spec.triggers)} | {spec.target} |"
            )
    return rows


def render_index(base: Base) -> str:
    head = [f"# Lessons: {base.spec.title}"]
    if base.marker:
        head.append(base.marker)
    head += list(base.spec.intro)
    if not base.relaid:
        head += ["", "Notes:"] + [f"- {n}" for n in base.notes]
    sections = [("Active", "active"), ("Candidates", "candidate"), ("Deferred", "deferred")]
    out = head
    for title, status in sections:
        out += ["", f"## {title}"] + _table(base, status)
    if base.relaid:
        out += [
            "",
            "## Notes",
            "Moved to LESSONS/NOTES.md in the re-layout; read them when a task needs them.",
        ]
    return "\n".join(out) + "\n"


def old_journal(spec: LessonSpec, rng: random.Random) -> list[str]:
    """Pre-demo hits of a long-lived lesson: their sessions are older than any transcript kept."""
    start = date.fromisoformat(spec.created)
    span = (date(2026, 10, 4) - start).days
    days = sorted(start + timedelta(days=rng.randrange(span)) for _ in range(spec.old_hits))
    tails = (
        "the report was written from memory of an earlier run",
        "the failure was visible in the last lines of the output nobody quoted",
        "found when the next session started from a red main",
        "same shape as the previous entry; the rule was in the index that day",
        "the agent had the lesson open and still skipped the step under time pressure",
    )
    lines = []
    for d in days:
        ts = at(d, rng.randrange(8, 19), rng.randrange(60), rng.randrange(60))
        parts = [
            f"- {d.isoformat()}",
            f"where: {rng.choice(spec.wheres)}:{rng.randrange(10, 400)}",
            f"what: {rng.choice(spec.whats)}; {rng.choice(tails)}",
            f"caught: {rng.choice(('gate', 'gate', 'human', 'ci', 'reviewer'))}",
            f"recalled: {rng.choice(('yes', 'no', 'no', 'unknown'))}",
            "defect: bug",
        ]
        if rng.random() < 0.85:
            parts += [f"session: {new_uuid(rng)}", f"ts: {iso_s(ts)}"]
        lines.append(" · ".join(parts))
    return lines


def write_git(repo: Repo) -> None:
    """Replay the commits into a fresh repository with git fast-import, then check out main."""
    repo.root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo.root)], check=True, env=env)
    stream = bytearray()
    previous: dict[str, str] = {}
    for n, c in enumerate(repo.commits, start=1):
        stamp = f"{int(c.when.timestamp())} +0000"
        msg = (c.message + "\n").encode()
        stream += f"commit refs/heads/main\nmark :{n}\n".encode()
        stream += f"author {c.author[0]} <{c.author[1]}> {stamp}\n".encode()
        stream += f"committer {c.author[0]} <{c.author[1]}> {stamp}\n".encode()
        stream += f"data {len(msg)}\n".encode() + msg
        for path in sorted(set(previous) - set(c.files)):
            stream += f"D {path}\n".encode()
        for path, text in sorted(c.files.items()):
            if previous.get(path) != text:
                data = text.encode()
                stream += f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"
        stream += b"\n"
        previous = c.files
    git = ["git", "-C", str(repo.root)]
    subprocess.run([*git, "fast-import", "--quiet"], input=bytes(stream), check=True, env=env)
    subprocess.run([*git, "checkout", "-q", "-f", "main"], check=True, env=env)
