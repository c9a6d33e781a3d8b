"""Which transcript files a run reads: the listing, without opening or parsing anything.

Kept apart from ``load`` (and free of Polars and DuckDB) so that a no-op run can list and
stat the files before it imports either.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lessons_analytics.errors import SourceNotFound


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str
    runtime: str  # claude | codex
    kind: str  # main | agent | subagent | meta | rollout | legacy (one-document rollout)
    #  | folder (an unreadable one)
    problem: str | None = None  # why it cannot be read, found while listing


def discover(paths: Iterable[Path]) -> list[SourceFile]:
    """Every transcript under the given folders (or the files themselves), sorted by path.

    A given path that does not exist raises ``SourceNotFound``. A folder that cannot be
    listed, and a file whose name is not UTF-8 (it could not be stored or shown), come back
    with a ``problem``, so the loader counts them by name instead of skipping them unseen.
    """
    found: dict[str, SourceFile] = {}

    def add(source: SourceFile | None) -> None:
        if source is not None:
            found[source.path] = _named(source)

    def unlistable(exc: OSError) -> None:
        folder = str(exc.filename)
        add(SourceFile(folder, "claude", "folder", f"unreadable folder: {exc.strerror}"))

    for given in paths:
        try:
            root = Path(os.path.abspath(os.path.expanduser(given)))
            exists = root.exists()
        except (OSError, ValueError):  # a NUL byte, a name too long for any file system
            exists = False
        if not exists:
            raise SourceNotFound(f"{given}: no such file or folder")
        if not root.is_dir():
            add(classify(str(root)))
            continue
        for dirpath, _dirs, files in os.walk(root, onerror=unlistable):
            # per folder, not per file: a big tree lists tens of thousands of files, and the
            # no-op run pays this listing every time
            parent = os.path.basename(dirpath)
            prefix = dirpath if dirpath.endswith(os.sep) else dirpath + os.sep
            for name in files:
                add(_classify(prefix + name, name, parent))
    return [found[p] for p in sorted(found)]


def _named(source: SourceFile) -> SourceFile:
    if source.path.isascii():  # nearly every path: no encoding to try
        return source
    try:
        source.path.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(source.path).decode("utf-8", "backslashreplace")
        return SourceFile(shown, source.runtime, source.kind, "file name is not UTF-8")
    return source


def classify(path: str) -> SourceFile | None:
    return _classify(path, os.path.basename(path), os.path.basename(os.path.dirname(path)))


def _classify(path: str, name: str, parent: str) -> SourceFile | None:
    """``classify`` with the file's name and its folder's name already split off."""
    if not name.endswith((".jsonl", ".json")):
        return None
    if name.endswith(".meta.json") and name.startswith("agent-"):
        return SourceFile(path, "claude", "meta")
    if name.endswith(".json") and name.startswith("rollout-"):
        return SourceFile(path, "codex", "legacy")  # the TypeScript CLI's {session, items}
    if not name.endswith(".jsonl"):
        return None
    if name.startswith("rollout-"):
        return SourceFile(path, "codex", "rollout")
    if name.startswith("agent-"):
        return SourceFile(path, "claude", "subagent" if parent == "subagents" else "agent")
    return SourceFile(path, "claude", "main")
