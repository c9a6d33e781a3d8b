"""``sources.scan`` lists and stats in one pass exactly what ``discover`` and a stat of each
listed file give, and gives up (None) wherever those would report a problem."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lessons_analytics import sources
from lessons_analytics.errors import SourceNotFound
from lessons_analytics.sources import discover, scan
from lessons_analytics.unchanged import _listing


def _tree(root: Path) -> Path:
    projects = root / "projects"
    session = projects / "-home-p"
    (session / "s1" / "subagents").mkdir(parents=True)
    (session / "s1" / "subagents" / "agent-a1.jsonl").write_text("{}\n", "utf-8")
    (session / "s1" / "subagents" / "agent-a1.meta.json").write_text("{}", "utf-8")
    (session / "00000000-0000-4000-8000-000000000001.jsonl").write_text("{}\n", "utf-8")
    (session / "agent-b2.jsonl").write_text("{}\n", "utf-8")
    (session / "notes.txt").write_text("x", "utf-8")
    (session / "settings.json").write_text("{}", "utf-8")  # a .json that is no transcript
    (session / "empty.jsonl").write_text("", "utf-8")
    codex = root / "sessions" / "2026" / "01"
    codex.mkdir(parents=True)
    (codex / "rollout-2026-01-01-x.jsonl").write_text("{}\n", "utf-8")
    (codex / "rollout-2025-old.json").write_text("{}", "utf-8")
    (codex / "a folder.jsonl").mkdir()  # a folder named like a transcript is walked
    (codex / "a folder.jsonl" / "inner.jsonl").write_text("{}\n", "utf-8")
    outside = root / "outside"
    outside.mkdir()
    (outside / "linked.jsonl").write_text("{}\n{}\n", "utf-8")
    os.symlink(outside / "linked.jsonl", session / "link.jsonl")  # listed, stat followed
    os.symlink(outside, session / "linked-folder")  # not walked, as os.walk does not
    return root


def _long_way(paths: list[Path]) -> dict[str, list[int]] | None:
    return _listing(discover(paths))


@pytest.fixture(params=[True, False], ids=["by-descriptor", "by-path"])
def listing_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each folder listed through a descriptor (POSIX) and by its path (Windows' way)."""
    monkeypatch.setattr(sources, "_BY_DESCRIPTOR", request.param)


@pytest.mark.usefixtures("listing_kind")
def test_scan_lists_and_stats_what_discover_lists(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    for paths in (
        [root / "projects", root / "sessions"],
        [root],
        [root / "projects", root / "projects" / "-home-p"],  # overlapping roots
        [root / "projects" / "-home-p" / "agent-b2.jsonl", root / "sessions"],  # a file
        [root / "projects" / "-home-p" / "notes.txt"],  # a file that is no transcript
    ):
        found = scan(paths)
        assert found is not None
        assert found == _long_way(paths)
    assert len(scan([root]) or {}) == 10  # every transcript, none of the others


@pytest.mark.usefixtures("listing_kind")
def test_a_broken_link_gives_up_as_the_stat_does(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    os.symlink(root / "gone.jsonl", root / "projects" / "-home-p" / "broken.jsonl")
    assert scan([root]) is None
    assert _long_way([root]) is None


@pytest.mark.usefixtures("listing_kind")
def test_a_name_that_is_not_utf8_gives_up(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    bad = root / "projects" / "-home-p" / "bad \udcff.jsonl"
    bad.write_text("{}\n", encoding="utf-8", errors="surrogateescape")
    assert scan([root]) is None
    assert _long_way([root]) is None


@pytest.mark.usefixtures("listing_kind")
def test_an_unreadable_folder_gives_up(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root lists every folder")
    root = _tree(tmp_path)
    locked = root / "projects" / "-home-p" / "s1"
    locked.chmod(0)
    try:
        assert scan([root]) is None
        assert _long_way([root]) is None
    finally:
        locked.chmod(0o755)


def test_a_missing_path_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFound):
        scan([tmp_path / "nowhere"])


# A big tree is shared with a forked copy of the process (Linux, one thread). The test
# process may run DuckDB's threads, so the shared scan runs in a fresh interpreter, told
# to share from the first level of two folders on (``_SPLIT_FOLDERS``), its forks counted.
_SHARED_SCAN = """
import json, marshal, os, sys
from lessons_analytics import sources
sources._SPLIT_FOLDERS = 2
forks = []
real_fork = os.fork
def counted_fork():
    forks.append(1)
    return real_fork()
os.fork = counted_fork
if sys.argv[1] == "child-fails":
    parent = os.getpid()
    real_dumps = marshal.dumps
    def dumps(value):
        if os.getpid() != parent:
            raise RuntimeError("the forked copy fails")
        return real_dumps(value)
    marshal.dumps = dumps
found = sources.scan(sys.argv[2:])
print(json.dumps({"forks": len(forks), "found": found}))
"""

needs_fork = pytest.mark.skipif(not sources._FORKS, reason="the scan forks on Linux only")


def _scan_shared(paths: list[Path], mode: str = "plain") -> tuple[int, object]:
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _SHARED_SCAN, mode, *map(str, paths)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    answer = json.loads(done.stdout)
    return answer["forks"], answer["found"]


@needs_fork
def test_a_big_tree_is_shared_with_a_forked_copy(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    forks, found = _scan_shared([root])  # its first level has three folders
    assert forks == 1
    assert found == _long_way([root])
    # a chain of single folders is never shared; two roots are scanned one after the other
    paths = [root / "projects", root / "sessions", root]
    forks, found = _scan_shared(paths)
    assert forks == 1
    assert found == _long_way(paths)


@needs_fork
def test_a_forked_copy_that_fails_leaves_its_share_to_the_scan(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    forks, found = _scan_shared([root], "child-fails")
    assert forks >= 1
    assert found == _long_way([root])


@needs_fork
def test_a_problem_in_either_share_gives_up(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    for folder in ("projects", "sessions", "outside"):  # whichever share each one falls in
        bad = root / folder / "bad \udcff.jsonl"
        bad.write_text("{}\n", encoding="utf-8", errors="surrogateescape")
    forks, found = _scan_shared([root])
    assert forks >= 1
    assert found is None
    assert _long_way([root]) is None


def test_a_process_with_threads_does_not_fork() -> None:
    import threading

    release = threading.Event()
    waiting = threading.Thread(target=release.wait)
    waiting.start()
    try:
        assert not sources._alone()
    finally:
        release.set()
        waiting.join()
