"""A full disk while writing the warehouse, and the spool folders a killed ingest leaves."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from lessons_analytics.cli import cli

DATA = Path(__file__).parent / "data"
REAL = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "real"


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 40 MiB tmpfs (root only; skipped where mounting is not permitted)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [r[0] for r in con.execute("select table_name from duckdb_tables()").fetchall()]
        return {t: con.execute(f'select count(*) from "{t}"').fetchall()[0][0] for t in tables}
    finally:
        con.close()


# the fixture tree is too small to outgrow the 256 KiB left free: only the real corpus does
@pytest.mark.real
@pytest.mark.skipif(not REAL.is_dir(), reason="real corpus not present")
def test_disk_full_gives_one_line_and_keeps_the_old_warehouse(
    small_disk: Path, tmp_path: Path
) -> None:
    db = small_disk / "w.duckdb"
    first = CliRunner().invoke(cli, ["--db", str(db), "ingest", str(DATA / "projects")])
    assert first.exit_code == 0, first.output
    before = _counts(db)
    # leave 256 KiB: far less than a second corpus needs
    free = shutil.disk_usage(small_disk).free
    with open(small_disk / "filler", "wb") as handle:
        handle.truncate(0)
        chunk = b"\0" * (1 << 20)
        left = free - (256 << 10)
        while left > 0:
            handle.write(chunk[: min(left, len(chunk))])
            left -= len(chunk)
    more = tmp_path / "more"
    shutil.copytree(REAL, more)
    result = CliRunner().invoke(cli, ["--db", str(db), "ingest", str(more)])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "disk full while writing" in lines[0] and str(small_disk) in lines[0]
    assert "free of" in lines[0] and "Traceback" not in result.output
    (small_disk / "filler").unlink()
    assert _counts(db) == before  # the old warehouse survives, unchanged
    assert not list(small_disk.glob(".spool-*"))


def test_a_killed_ingests_spool_folders_are_removed_by_the_next_run(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    # what a killed run leaves: its named spool, and an old-style one an hour old
    ours = tmp_path / ".spool-w.duckdb.k1ll3d"
    ours.mkdir()
    legacy = tmp_path / ".spool-abc123"
    legacy.mkdir()
    hour_ago = time.time() - 3600
    os.utime(legacy, (hour_ago, hour_ago))
    young = tmp_path / ".spool-x9y8z7"  # possibly another warehouse's live run: kept
    young.mkdir()
    other = tmp_path / ".spool-other.duckdb.live"  # another warehouse's: kept
    other.mkdir()
    result = CliRunner().invoke(cli, ["--db", str(db), "ingest", str(DATA / "projects")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.glob(".spool-*")) == [
        ".spool-other.duckdb.live",
        ".spool-x9y8z7",
    ]
