"""Build real lesson bases (git repositories) in ``tmp_path`` for tests.

    repo = tmp_path / "proj"
    base = make_base(repo, lessons={"L-0001.md": lesson_text("L-0001")},
                     index=index_text(active=["L-0001"]),
                     commits=[("2026-02-01T10:00:00Z", {"LESSONS/L-0001.md": "..."})])

Commit dates are fixed through GIT_AUTHOR_DATE/GIT_COMMITTER_DATE, and the user's git
config is ignored, so histories are byte-for-byte reproducible.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

DEFAULT_DATE = "2026-01-05T09:00:00Z"
RULE = "Rule: instead of reporting from memory, run `git status` and quote its output."


def git(repo: Path, *args: str, when: str = DEFAULT_DATE) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def write_files(root: Path, files: Mapping[str, str | bytes | None]) -> None:
    """Write (str or bytes) or delete (None) files, paths relative to ``root``."""
    for rel, content in files.items():
        path = root / rel
        if content is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def commit(
    repo: Path, when: str, files: Mapping[str, str | bytes | None], message: str = "c"
) -> str:
    """Apply ``files`` and commit them at ``when``; returns the new sha."""
    write_files(repo, files)
    git(repo, "add", "-A", when=when)
    git(repo, "commit", "-q", "--allow-empty", "-m", message, when=when)
    return git(repo, "rev-parse", "HEAD").strip()


def make_base(
    project: Path,
    *,
    lessons: Mapping[str, str | bytes] | None = None,
    index: str | None = None,
    quarantine: str | None = None,
    retired: str | None = None,
    extra: Mapping[str, str | bytes] | None = None,
    use_git: bool = True,
    repo: Path | None = None,
    when: str = DEFAULT_DATE,
    commits: Iterable[tuple[str, Mapping[str, str | bytes | None]]] = (),
) -> Path:
    """Create ``project/LESSONS`` and return it (the LESSONS path).

    ``lessons`` maps file names inside LESSONS to their text; ``extra`` maps paths relative
    to ``project`` (e.g. a Makefile). With ``use_git`` the repository is ``repo`` (default:
    ``project``; pass a parent for a sub-project base), initialised if needed, and
    everything is committed at ``when``; then each ``(date, {path: text|None})`` of
    ``commits`` (paths relative to the repository) is applied and committed in order.
    """
    base = project / "LESSONS"
    base.mkdir(parents=True, exist_ok=True)
    files: dict[str, str | bytes | None] = {f"LESSONS/{k}": v for k, v in (lessons or {}).items()}
    for name, text in (("INDEX.md", index), ("QUARANTINE.md", quarantine), ("RETIRED.md", retired)):
        if text is not None:
            files[f"LESSONS/{name}"] = text
    files.update(extra or {})
    write_files(project, files)
    if not use_git:
        return base
    repo = repo or project
    if not (repo / ".git").exists():
        git(repo, "init", "-q", "-b", "main")
    commit(repo, when, {}, "initial")
    for date, changes in commits:
        commit(repo, date, changes)
    return base


def lesson_text(
    lesson_id: str,
    *,
    status: str = "active",
    rule: str = RULE,
    hits: Iterable[str] = (),
    evidence_hits: int | None = None,
    extra_fm: str = "",
    scope: str | None = "reporting state",
    target: str | None = "state reported without running the command",
) -> str:
    """A well-formed lesson; override any part to break it."""
    lines = ["---", f"id: {lesson_id}", "addressee: all-agents", "trigger: [report, status]"]
    if scope is not None:
        lines.append(f'scope: "{scope}"')
    if target is not None:
        lines.append(f'target: "{target}"')
    lines += ["class: verify-before-report", f"status: {status}"]
    if evidence_hits is not None:
        lines += ["evidence:", f"  hits: {evidence_hits}", "  helped: null"]
    if extra_fm:
        lines.append(extra_fm.rstrip("\n"))
    lines += ["---", rule, "Why: the report was wrong twice.", ""]
    hits = list(hits)
    if hits:
        lines += ["## Hits", *hits, ""]
    return "\n".join(lines)


def index_text(
    active: Iterable[str] = (),
    candidates: Iterable[str] = (),
    *,
    header: Iterable[str] = ("Notes: read the rows that match your task.",),
    marker: str | None = None,
    title: str = "# Lessons: demo",
    active_heading: str = "## Active",
    candidates_heading: str = "## Candidates",
    tail: str = "",
) -> str:
    """An INDEX.md in the spec's layout; ``marker`` is the sleep-marker line, if any."""
    table = ["| id | addressee | triggers | target |", "|---|---|---|---|"]
    lines = [title, *([marker] if marker else []), *header, "", active_heading, *table]
    lines += [f"| {i} | all-agents | report, status | target of {i} |" for i in active]
    lines += ["", candidates_heading, *table]
    lines += [f"| {i} | executor | board | target of {i} |" for i in candidates]
    return "\n".join(lines) + "\n" + tail
