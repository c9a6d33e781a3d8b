"""Which transcript files a run reads: the listing, without opening or parsing anything.

Kept apart from ``load`` (and free of Polars and DuckDB) so that a no-op run can list and
stat the files before it imports either.
"""

from __future__ import annotations

import marshal
import os
import sys
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
        if not _scan_tree(root, found):
            return None
    return found


# Where the platform allows it (not on Windows), each folder is listed through a descriptor
# of its own, so that a file's stat names it relative to its folder (``fstatat``) rather than
# by its whole path, which the kernel would walk again from the root for every file. The
# scan is mostly kernel time: on the D corpus at 1.25 GB (51,300 files) its system time went
# 0.164 -> 0.135 s, the scan 0.256 -> 0.240 s (medians of 6, alternating).
_BY_DESCRIPTOR = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)


def _scan_folders(folders: list[str], found: dict[str, list[int]]) -> bool:
    """The folders of ``scan`` and those below them, as ``os.walk`` (not following links to
    folders) walks them; False when something makes the listing unusable. ``folders`` is
    the walk's stack: emptied as they are walked."""
    while folders:
        if not _scan_one(folders.pop(), found, folders):
            return False
    return True


def _scan_one(dirpath: str, found: dict[str, list[int]], folders: list[str]) -> bool:
    """The transcripts of one folder into ``found`` and its folders onto ``folders``; False
    when something makes the listing unusable. (The descriptor is opened and closed here
    rather than in a context manager: at 6,300 folders that manager's calls were a tenth
    of the scan's CPU time.)"""
    by_descriptor = _BY_DESCRIPTOR
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


# A big tree is stat'ed by two processes at once: the scan is a stat per file, nearly all
# of it the interpreter's loop and the kernel's, on one core. The tree is listed breadth
# first until a level has this many folders, which are then shared out between this
# process and a forked copy of it; a tree that never has that many stays in this process
# (a fork and the hand-over of its half cost some milliseconds). Only on Linux, and only
# while this process runs one thread: a fork copies no other thread, and one of them may
# hold a lock the copy would wait on forever (DuckDB's workers, once it is imported), and
# macOS's system libraries are not safe to use in a forked copy at all. On the D corpus at
# 1.25 GB (56,245 files in 6,300 folders) the scan took 0.19 s, shared 0.13 s.
_SPLIT_FOLDERS = 16
_FORKS = sys.platform.startswith("linux") and hasattr(os, "fork")


def _scan_tree(top: str, found: dict[str, list[int]]) -> bool:
    """``_scan_folders([top], found)``, shared with a forked process when the tree is big."""
    level = [top]
    while len(level) < _SPLIT_FOLDERS:
        below: list[str] = []
        for folder in level:
            if not _scan_one(folder, found, below):
                return False
        if not below:
            return True
        level = below
    if not _alone():
        return _scan_folders(level, found)
    return _scan_shared(level, found)


def _alone() -> bool:
    """Whether this process may fork: Linux, and a single thread in it."""
    if not _FORKS:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _scan_shared(folders: list[str], found: dict[str, list[int]]) -> bool:
    """``_scan_folders`` of ``folders``, every other one walked by a forked process, which
    sends what it found back through a pipe (``marshal``: a dict of strings and lists of
    integers, written and read in C). A copy that fails, or dies, leaves its share to be
    walked here: the result never depends on it."""
    ours, theirs = folders[::2], folders[1::2]
    try:
        read, write = os.pipe()
    except OSError:
        return _scan_folders(folders, found)
    try:
        child = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return _scan_folders(folders, found)
    if child == 0:  # pragma: no cover - the forked copy: its share, then gone
        status = 1
        try:
            os.close(read)
            shared: dict[str, list[int]] = {}
            answer = marshal.dumps(shared if _scan_folders(list(theirs), shared) else None)
            with os.fdopen(write, "wb") as pipe:
                pipe.write(answer)
            status = 0
        finally:
            os._exit(status)  # no atexit handler, no flush of the parent's buffers
    os.close(write)
    try:
        with os.fdopen(read, "rb") as pipe:
            ok = _scan_folders(ours, found)
            answer = pipe.read()  # whole, before waiting: a pipe holds 64 KB
    finally:
        _, status = os.waitpid(child, 0)
    if status != 0 or not answer:
        return ok and _scan_folders(theirs, found)
    theirs_found = marshal.loads(answer)
    if theirs_found is None:
        return False
    found.update(theirs_found)
    return ok


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
