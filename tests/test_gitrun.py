"""The one git runner: output, failures as GitError / None, a timeout, unquoted paths."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from lessons_analytics.gitrun import GitError, git_or_none, run_git
from lessons_analytics.lessonbase import reader as bases
from lessons_analytics.retro.git import commits


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "café.txt").write_text("x\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    subprocess.run(["git", *env, "-C", str(repo), "commit", "-qm", "first"], check=True)
    return repo


def test_output_and_unquoted_paths(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert run_git(repo, "ls-files").decode() == "café.txt\n"
    (commit,) = commits(repo, None)
    assert commit.files == ["café.txt"] and commit.subject == "first"


def test_failure_is_git_error_or_none(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="git rev-parse failed: .*not a git repository"):
        run_git(tmp_path, "rev-parse", "--show-toplevel")
    assert git_or_none(tmp_path, "rev-parse", "--show-toplevel") is None
    assert bases.repo_root_of(tmp_path) is None  # bases' _git is the same runner
    assert bases.repo_root_of(_repo(tmp_path)) == (tmp_path / "repo").resolve()


def test_a_hung_git_times_out(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(GitError, match="timed out"):
        run_git(tmp_path, "-c", "alias.hang=!sleep 3", "hang", timeout=0.3)
    assert time.monotonic() - started < 2.5
    assert git_or_none(tmp_path, "-c", "alias.hang=!sleep 3", "hang", timeout=0.3) is None
