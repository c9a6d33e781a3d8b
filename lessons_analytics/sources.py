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


def scan(paths: Iterable[Path]) -> dict[str, list[int]] | None:
    """What ``discover`` lists, with each file's size and mtime (``os.stat``), in one pass:
    path -> [size, mtime_ns]. None when ``discover`` would list a problem (an unreadable
    folder, a name that is not UTF-8) or a listed file cannot be stat'ed: the caller then
    lists the long way, which names the problem.

    The no-op run and the +1 run pay this on every file of a big tree, so it makes no
    ``SourceFile``s (the +1 run classifies only the files it opens) and takes the type of
    each entry from the folder listing (``DirEntry``), as ``os.walk`` does, not from a
    stat. A given path that does not exist raises ``SourceNotFound``, as in ``discover``.
    """
    found: dict[str, list[int]] = {}
    for given in paths:
        try:
            root = os.path.abspath(os.path.expanduser(given))
            exists = os.path.exists(root)
        except (OSError, ValueError):
            exists = False
        if not exists:
            raise SourceNotFound(f"{given}: no such file or folder")
        if not os.path.isdir(root):
            if classify(root) is not None:
                if not _utf8(root):
                    return None
                try:
                    info = os.stat(root)
                except (OSError, ValueError):
                    return None
                found[root] = [info.st_size, info.st_mtime_ns]
            continue
        if not _scan_folder(root, found):
            return None
    return found


# Where the platform allows it (not on Windows), each folder is listed through a descriptor
# of its own, so that a file's stat names it relative to its folder (``fstatat``) rather than
# by its whole path, which the kernel would walk again from the root for every file. The
# scan is mostly kernel time: on the D corpus at 1.25 GB (51,300 files) its system time went
# 0.164 -> 0.135 s, the scan 0.256 -> 0.240 s (medians of 6, alternating).
_BY_DESCRIPTOR = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)


def _scan_folder(top: str, found: dict[str, list[int]]) -> bool:
    """One folder of ``scan`` and those below it, as ``os.walk`` (not following links to
    folders) walks them; False when something makes the listing unusable. (The descriptor
    is opened and closed here rather than in a context manager: at 6,300 folders that
    manager's calls were a tenth of the scan's CPU time.)"""
    by_descriptor = _BY_DESCRIPTOR
    folders = [top]
    while folders:
        dirpath = folders.pop()
        prefix = dirpath if dirpath.endswith(os.sep) else dirpath + os.sep
        try:
            descriptor = os.open(dirpath, _FOLDER_FLAGS) if by_descriptor else -1
            try:
                with os.scandir(descriptor if by_descriptor else dirpath) as entries:
                    for entry in entries:
                        name = entry.name
                        try:
                            is_dir = entry.is_dir()
                        except OSError:  # as os.walk: listed as a file
                            is_dir = False
                        if is_dir:
                            if not entry.is_symlink():
                                folders.append(prefix + name)
                        elif name.endswith(".jsonl") or (
                            name.endswith(".json") and _json_kind(name) is not None
                        ):  # every *.jsonl is a transcript, a *.json only by its name
                            path = prefix + name
                            if not path.isascii() and not _utf8(path):
                                return False
                            info = entry.stat()  # follows a link, as os.stat does
                            found[path] = [info.st_size, info.st_mtime_ns]
            finally:
                if by_descriptor:
                    os.close(descriptor)
        except OSError:  # an unreadable folder, or a file that cannot be stat'ed
            return False
    return True


def _utf8(path: str) -> bool:
    if path.isascii():
        return True
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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


def _json_kind(name: str) -> tuple[str, str] | None:
    """(runtime, kind) of a ``*.json`` file by its name, None for one that is no transcript:
    asked of every such file a listing meets (a subagent's meta file beside each run)
    without making a ``SourceFile``."""
    if name.startswith("agent-") and name.endswith(".meta.json"):
        return "claude", "meta"
    if name.startswith("rollout-"):
        return "codex", "legacy"  # the TypeScript CLI's {session, items}
    return None


def _classify(path: str, name: str, parent: str) -> SourceFile | None:
    """``classify`` with the file's name and its folder's name already split off."""
    if name.endswith(".json"):
        kind = _json_kind(name)
        return None if kind is None else SourceFile(path, *kind)
    if not name.endswith(".jsonl"):
        return None
    if name.startswith("rollout-"):
        return SourceFile(path, "codex", "rollout")
    if name.startswith("agent-"):
        return SourceFile(path, "claude", "subagent" if parent == "subagents" else "agent")
    return SourceFile(path, "claude", "main")
