"""Where the lesson bases are, and whether one changed: every ``LESSONS/`` folder above a
working directory, the base a path names, and a base's fingerprint. Apart from
``reader``, which reads a base whole with its git history, so that the runs that only ask
these questions (the no-op ingest above all) import neither the parsers of the base's
files nor git's.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from pathlib import Path

from lessons_analytics.errors import BaseNotFound
from lessons_analytics.lessonbase.shapes import LESSONS_DIR, is_sleep_marker

__all__ = ["clear_discovery_cache", "discover_bases", "fingerprint", "resolve_base"]


def discover_bases(start: str | Path) -> list[Path]:
    """Every ``LESSONS/`` folder from ``start`` upward, nearest first; [] if start is absent.

    A ``start`` no file system can hold (a NUL byte, a name over 255 bytes, a path over
    PATH_MAX: a cwd as a transcript recorded it) stands in no base, like an absent one."""
    try:
        path = Path(start)
        if not path.exists():
            return []
        path = path.resolve()
        return list(_bases_at(str(path if path.is_dir() else path.parent)))
    except (OSError, ValueError):
        return []


def clear_discovery_cache() -> None:
    """Forget cached lookups (a long-running process that creates bases calls this)."""
    _bases_at.cache_clear()


@functools.lru_cache(maxsize=4096)
def _bases_at(directory: str) -> tuple[Path, ...]:
    # Recursive and cached per directory: sessions sharing a cwd (or a parent) hit the cache.
    here = Path(directory)
    own = (here / LESSONS_DIR,) if (here / LESSONS_DIR).is_dir() else ()
    return own if here.parent == here else own + _bases_at(str(here.parent))


def resolve_base(path: str | Path) -> Path:
    """The LESSONS folder given itself or through the project directory holding it."""
    candidate = Path(path)
    if candidate.name == LESSONS_DIR and candidate.is_dir():
        return candidate.resolve()
    if (candidate / LESSONS_DIR).is_dir():
        return (candidate / LESSONS_DIR).resolve()
    raise BaseNotFound(f"{path}: no {LESSONS_DIR}/ folder here")


def fingerprint(base: Path, salt: str = "") -> str:
    """Changes whenever a file of the base or the repository HEAD changes. INDEX.md counts
    by its content without the sleep marker, so refreshing the marker is not a change."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(salt.encode())
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return "missing"
    for entry in entries:
        if entry.name == "INDEX.md":
            try:
                text = Path(entry.path).read_bytes()
            except OSError:
                text = b""
            kept = [line for line in text.splitlines() if not is_sleep_marker(line)]
            digest.update(b"INDEX.md:" + hashlib.blake2b(b"\n".join(kept)).digest())
            continue
        stat = entry.stat()
        digest.update(f"{entry.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    root = _repository_of(base)
    if root is not None:
        for ref in (root / ".git" / "HEAD", root / ".git" / "index"):
            with contextlib.suppress(OSError):
                digest.update(f"{ref}:{ref.stat().st_mtime_ns};".encode())
    return digest.hexdigest()


def _repository_of(base: Path) -> Path | None:
    """The working tree holding ``base``: the nearest folder at or above it with a ``.git``
    entry (a folder, or a worktree's file), where git finds it too. Looked up on the file
    system, not with ``repo_root_of``: a git process per base was 1.3 ms of every run's
    fingerprints (the no-op's included) for each base. Where git would see no repository
    although a ``.git`` is there (GIT_DIR, GIT_CEILING_DIRECTORIES, a file system's edge, an
    unsafe owner), the fingerprint also follows that HEAD and index, which can only make a
    change more likely to be seen."""
    try:
        here = base.resolve()
    except (OSError, ValueError):
        return None
    for folder in (here, *here.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None
