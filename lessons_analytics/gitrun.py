"""The one way the package runs git: read-only commands in a repository, with a timeout.

Paths come back unquoted (``core.quotePath=false``), so a file name with non-ASCII letters
is the name on disk, not git's octal escape.

Choice: a command that runs longer than ``TIMEOUT_S`` fails like any other failing command
(``GitError``; ``git_or_none`` gives None). A hung git (a lock held by a crashed process,
a repository on a dead network mount) must not hang a nightly run; two minutes is far more
than ``git log`` or ``cat-file --batch`` needs on a base of thousands of commits.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["TIMEOUT_S", "GitError", "git_or_none", "run_git"]

TIMEOUT_S = 120.0


class GitError(Exception):
    """git is missing, failed, or ran out of time."""


def run_git(cwd: Path, *args: str, data: bytes | None = None, timeout: float = TIMEOUT_S) -> bytes:
    """Standard output of ``git -C cwd ARGS``; ``data`` goes to its standard input."""
    # imported here, where git runs: `check` and `cards` import this module through the base
    # reader (for its lesson files) and run no git; subprocess and what it imports is 2 ms
    import subprocess

    command = ["git", "-c", "core.quotePath=false", "-C", str(cwd), *args]
    try:
        done = subprocess.run(
            command, input=data, capture_output=True, check=False, timeout=timeout
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"{cwd}: git {args[0] if args else ''} failed: {exc}") from exc
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip()
        raise GitError(f"{cwd}: git {args[0] if args else ''} failed: {reason}")
    return done.stdout


def git_or_none(
    cwd: Path, *args: str, data: bytes | None = None, timeout: float = TIMEOUT_S
) -> bytes | None:
    """``run_git``, None when it fails (git missing, not a repository, timed out)."""
    try:
        return run_git(cwd, *args, data=data, timeout=timeout)
    except GitError:
        return None
