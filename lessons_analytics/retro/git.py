"""Git signals: reverts, and fix commits touching what a commit of the previous hours
changed. Git is run read-only (``git log``, through ``gitrun``) on each repository."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from lessons_analytics.gitrun import run_git
from lessons_analytics.retro import text as tx
from lessons_analytics.retro.model import Signal
from lessons_analytics.retro.patterns import Patterns, any_match

_REVERTED = re.compile(r"This reverts commit ([0-9a-f]{7,40})")
_FORMAT = "%x1e%H%x1f%cI%x1f%B%x1f"


@dataclass
class Commit:
    sha: str
    at: datetime
    message: str
    files: list[str]

    @property
    def subject(self) -> str:
        return self.message.strip().splitlines()[0] if self.message.strip() else ""


def commits(repo: Path, since: datetime | None) -> list[Commit]:
    """Non-merge commits of ``repo`` (oldest first) with the files they changed."""
    args = ["log", "--no-merges", "--name-only", f"--format={_FORMAT}"]
    if since is not None:
        args.append(f"--since={since.isoformat()}")
    out = []
    for record in run_git(repo, *args).decode("utf-8", "replace").split("\x1e")[1:]:
        parts = record.split("\x1f")
        if len(parts) < 4:
            continue
        files = [f for f in parts[3].splitlines() if f.strip()]
        out.append(Commit(parts[0], datetime.fromisoformat(parts[1]), parts[2], files))
    return sorted(out, key=lambda c: c.at)


def _code_files(commit: Commit) -> list[str]:
    """Changed files outside lesson bases (a base's own edits are not code churn)."""
    return sorted(f for f in commit.files if "LESSONS/" not in f and not f.startswith("LESSONS"))


def git_signals(repo: Path, since: datetime | None, pats: Patterns) -> list[Signal]:
    window = timedelta(hours=pats.fix_window_hours)
    history = commits(repo, since - window if since else None)
    by_sha = {c.sha: c for c in history}
    out = []
    for index, commit in enumerate(history):
        if since is not None and commit.at < since:
            continue
        files = _code_files(commit)
        if not files:
            continue
        if any_match(pats.reverts, commit.message):
            reverted = _REVERTED.search(commit.message)
            if _undoes_a_revert(commit, reverted, by_sha, pats):
                continue  # re-applying a change that was reverted: the revert was the slip
            out.append(
                _signal(
                    repo,
                    commit,
                    "revert",
                    files[0],
                    pats,
                    {"files": files, "reverts": reverted.group(1) if reverted else None},
                )
            )
            continue
        if not any_match(pats.fixes, commit.subject):
            continue
        earlier = [c for c in history[:index] if commit.at - window <= c.at <= commit.at]
        touched = [(c, sorted(set(files) & set(_code_files(c)))) for c in earlier]
        touched = [(c, shared) for c, shared in touched if shared]
        if touched:
            shared = sorted({f for _, s in touched for f in s})
            out.append(
                _signal(
                    repo,
                    commit,
                    "fix_commit",
                    shared[0],
                    pats,
                    {
                        "files": shared,
                        "fixes": [c.sha for c, _ in touched],
                        "hours_after": round(
                            (commit.at - touched[-1][0].at).total_seconds() / 3600, 2
                        ),
                    },
                )
            )
    return out


def _undoes_a_revert(
    commit: Commit, reverted: re.Match[str] | None, by_sha: dict[str, Commit], pats: Patterns
) -> bool:
    if commit.subject.startswith('Revert "Revert '):
        return True
    if reverted is None:
        return False
    sha = reverted.group(1)
    target = by_sha.get(sha) or next((c for s, c in by_sha.items() if s.startswith(sha)), None)
    return target is not None and any_match(pats.reverts, target.message) is not None


def _signal(
    repo: Path, commit: Commit, kind: str, file: str, pats: Patterns, detail: dict[str, object]
) -> Signal:
    return Signal(
        kind=kind,
        mechanism=("git", repo.name, file),
        quote=tx.quote(tx.redacted(commit.message), 0, pats.quote_chars),
        ts=commit.at,
        commit=commit.sha,
        repo=str(repo),
        detail={"subject": tx.one_line(tx.redacted(commit.subject), 160), **detail},
    )
