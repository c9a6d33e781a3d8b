"""The no-op run is told from the file system alone, and only when nothing changed.

One demo workspace is ingested; each test first checks that a re-run is a no-op (answered
from the sidecar, with the full run's report), then changes one thing a run depends on and
checks that the no-op answer is refused and the full run loads the change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from lessons_analytics import unchanged
from lessons_analytics.demo import DemoWorkspace, build_demo
from lessons_analytics.ingestion import ingest, ingest_changed
from lessons_analytics.sources import discover
from tests.support.basebuilder import git


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoWorkspace, Path]:
    root = tmp_path_factory.mktemp("unchanged")
    ws = build_demo(root / "demo")
    db = root / "warehouse.duckdb"
    ingest(db, ws.sources)
    return ws, db


def _cli(db: Path, ws: DemoWorkspace) -> tuple[dict[str, object], list[str]]:
    """`ingest --json` in a fresh process: its document, and which heavy modules it imported
    (subprocess: a git process, which the bases' fingerprints do without; the base reader,
    which only a run that reads a base again needs)."""
    script = (
        "import atexit, runpy, sys\n"
        "atexit.register(lambda: print(' '.join(m for m in ('polars', 'duckdb', '_duckdb',"
        " 'pyarrow', 'subprocess', 'lessons_analytics.lessonbase.reader') if m in sys.modules),"
        " file=sys.stderr))\n"
        "sys.argv = ['lessons-analytics', *sys.argv[1:]]\n"
        "runpy.run_module('lessons_analytics', run_name='__main__')\n"
    )
    argv = ["--db", str(db), "ingest", *map(str, ws.sources), "--json"]
    done = subprocess.run(
        [sys.executable, "-c", script, *argv], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout), (done.stderr.strip().splitlines() or [""])[-1].split()


def test_a_rerun_answers_from_the_file_system_with_the_full_runs_report(
    world: tuple[DemoWorkspace, Path],
) -> None:
    ws, db = world
    quick, imported = _cli(db, ws)
    assert imported == []
    unchanged.sidecar(db).unlink()  # the next run goes the whole way and finds nothing new
    slow, imported = _cli(db, ws)
    assert "_duckdb" in imported  # the engine alone, not its Python layer
    assert "lessons_analytics.lessonbase.reader" not in imported  # no base changed
    assert quick == slow
    assert slow["files_loaded"] == 0 and slow["lines_loaded"] == 0
    assert slow["sessions"] and slow["bases"] == 3


def _digest(files: dict[str, list[int]]) -> str:
    """The digest the sidecar holds of a listing."""
    return unchanged._digest_of(unchanged._listing_text(files))


def _append_a_line(ws: DemoWorkspace) -> None:
    path = sorted(ws.claude_projects.rglob("*.jsonl"))[0]
    with path.open("a", encoding="utf-8") as handle:
        handle.write("not json\n")


def _new_transcript(ws: DemoWorkspace) -> None:
    path = sorted(ws.claude_projects.rglob("*.jsonl"))[1]
    path.with_name("00000000-0000-4000-8000-00000000abcd.jsonl").write_bytes(path.read_bytes())


def _edit_a_lesson(ws: DemoWorkspace) -> None:
    lesson = sorted(ws.bases[0].glob("L-*.md"))[0]
    lesson.write_text(lesson.read_text(encoding="utf-8") + "\nOne more line.\n", "utf-8")


def _a_commit_in_a_bases_repository(ws: DemoWorkspace) -> None:
    # outside the base: only the repository's index and HEAD tell (the base's history, and
    # so its lessons' activations, may have changed)
    root = Path(git(ws.bases[0], "rev-parse", "--show-toplevel").strip())
    (root / "NOTES.md").write_text("a change outside the base\n", "utf-8")
    git(root, "add", "NOTES.md")
    git(root, "commit", "-q", "-m", "notes")


def _a_new_base_above_a_cwd(ws: DemoWorkspace) -> None:
    (ws.root / "repos" / "sandbox" / "LESSONS").mkdir()


def _the_warehouse_written_by_another_run(ws: DemoWorkspace) -> None:
    db = ws.root.parent / "warehouse.duckdb"
    ingest(db, [ws.claude_projects])  # other arguments: this run's sidecar is not theirs


CHANGES: dict[str, Callable[[DemoWorkspace], None]] = {
    "a line appended": _append_a_line,
    "a new transcript": _new_transcript,
    "a lesson edited": _edit_a_lesson,
    "a commit in a base's repository": _a_commit_in_a_bases_repository,
    "a new LESSONS/ above a session's cwd": _a_new_base_above_a_cwd,
    "the warehouse written by another run": _the_warehouse_written_by_another_run,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_is_never_answered_from_the_sidecar(
    world: tuple[DemoWorkspace, Path], change: str
) -> None:
    ws, db = world
    before = ingest(db, ws.sources)
    assert unchanged.check(db, ws.sources, []) is not None
    CHANGES[change](ws)
    assert unchanged.check(db, ws.sources, []) is None
    after = ingest(db, ws.sources)
    assert after.files_loaded == (1 if change in {"a line appended", "a new transcript"} else 0)
    assert after.changed == (change != "the warehouse written by another run")
    assert unchanged.check(db, ws.sources, []) is not None  # remembered again
    if change == "a lesson edited":
        assert after.totals["lessons"] == before.totals["lessons"]


def test_a_file_that_grows_while_the_run_stores_its_rows_is_loaded_by_the_next(
    tmp_path: Path,
) -> None:
    """The sidecar holds each file as the run read it (its state in raw_files), so a file
    that grew after it was read is no no-op at the next question, and the next run loads
    the new line."""
    ws = build_demo(tmp_path / "demo")
    db = tmp_path / "warehouse.duckdb"
    ingest(db, ws.sources)
    _new_transcript(ws)
    grown: list[str] = []

    def stage(name: str) -> None:
        if name == "storing rows" and not grown:  # every file is read by now
            _append_a_line(ws)
            grown.append(name)

    first = ingest(db, ws.sources, stage=stage)
    assert grown and first.files_loaded == 1
    assert unchanged.check(db, ws.sources, []) is None
    second = ingest(db, ws.sources)
    assert second.files_loaded == 1
    assert second.totals["load_errors"] == first.totals["load_errors"] + 1  # "not json"
    assert unchanged.check(db, ws.sources, []) is not None


def test_an_unreadable_file_is_never_remembered(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    tree = tmp_path / "projects" / "-p"
    tree.mkdir(parents=True)
    locked = tree / "00000000-0000-4000-8000-000000000001.jsonl"
    locked.write_text("{}\n", encoding="utf-8")
    locked.chmod(0)
    db = tmp_path / "w.duckdb"
    ingest(db, [tmp_path / "projects"])
    assert not unchanged.sidecar(db).exists()
    assert unchanged.check(db, [tmp_path / "projects"], []) is None


def test_a_folder_error_is_never_remembered(tmp_path: Path) -> None:
    tree = tmp_path / "projects" / "-p"
    tree.mkdir(parents=True)
    (tree / "bad name \udcff.jsonl").write_text("{}\n", encoding="utf-8", errors="surrogateescape")
    db = tmp_path / "w.duckdb"
    report = ingest(db, [tmp_path / "projects"])
    assert report.totals["load_errors"] == 1
    assert not unchanged.sidecar(db).exists()


def test_a_tool_call_without_a_name_is_remembered(tmp_path: Path) -> None:
    """``by_tool`` then has a null key, which the sidecar writes as ``ingest --json`` does
    (``"null"``); orjson refused it, and the run that should write the sidecar crashed."""
    tree = tmp_path / "projects" / "-p"
    tree.mkdir(parents=True)
    line = {
        "type": "assistant",
        "uuid": "00000000-0000-4000-8000-0000000000a1",
        "sessionId": "00000000-0000-4000-8000-000000000001",
        "timestamp": "2026-01-01T10:00:00.000Z",
        "cwd": "/p",
        "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1"}]},
    }
    (tree / "00000000-0000-4000-8000-000000000001.jsonl").write_text(
        json.dumps(line) + "\n", encoding="utf-8"
    )
    db = tmp_path / "w.duckdb"
    full = ingest(db, [tmp_path / "projects"])
    assert full.totals["by_tool"] == {None: 1}  # the call is counted, under no name
    again = unchanged.check(db, [tmp_path / "projects"], [])
    assert again is not None  # remembered: the re-run is a no-op
    assert again.totals["by_tool"] == {"null": 1}  # as `ingest --json` prints it


def _files_file(db: Path) -> tuple[str, dict[str, list[int]]]:
    """The files' file: its digest's line, then its listing's JSON text."""
    line, _, text = unchanged.files_sidecar(db).read_bytes().partition(b"\n")
    return line.decode(), orjson.loads(text)


def _listing_of(entries: set[bytes]) -> dict[str, list[int]]:
    """The listing whose entries ``_entries`` reads as these."""
    if not entries:
        return {}
    listing: dict[str, list[int]] = orjson.loads(b'{"' + b'],"'.join(entries) + b"]}")
    assert len(listing) == len(entries)
    return listing


def _split(text: bytes, start: int, end: int) -> set[bytes]:
    """The entries of a listing's text that lie at ``text[start:end]`` (``_region``)."""
    return set(text[start:end].split(b'],"')) if start < end else set()


def _entries(text: bytes) -> set[bytes]:
    """The entries of a listing's JSON text, as ``unchanged`` cuts them out."""
    return _split(text, *unchanged._region(text, 0))


def _stored_listing(found: unchanged.Stored) -> dict[str, list[int]]:
    """The listing a stored one stands for: the files' file's, with the delta applied."""
    base = _split(found.text, found.start, found.end)
    return _listing_of((base - found.dropped) | found.added)


def test_the_no_op_answer_compares_a_digest_not_the_listing(
    world: tuple[DemoWorkspace, Path],
) -> None:
    """The sidecar holds the listing's digest; the sizes and mtimes themselves, in a file of
    their own, are read only by a run that goes on to ingest, and only when that file is the
    sidecar's own."""
    ws, db = world
    ingest(db, ws.sources)
    digest, stored = _files_file(db)
    assert json.loads(unchanged.sidecar(db).read_bytes())["files"] == {
        "count": len(stored),
        "digest": digest,
    }
    assert all(len(stat) == 2 for stat in stored.values())
    saved = unchanged.files_sidecar(db).read_bytes()
    unchanged.files_sidecar(db).unlink()
    assert unchanged.check(db, ws.sources, []) is not None  # the no-op never reads it

    _append_a_line(ws)
    appended = str(sorted(ws.claude_projects.rglob("*.jsonl"))[0])
    assert unchanged.ask(db, ws.sources, []).load_stored() is None  # none: raw_files' then
    unchanged.files_sidecar(db).write_bytes(saved)
    asked = unchanged.ask(db, ws.sources, [])
    assert asked.report is None and asked.stored is None  # read on first use, not by ask
    found = asked.load_stored()
    assert found is not None and _stored_listing(found) == stored
    assert asked.changed() == [appended]  # the one file whose size and mtime differ
    unchanged.files_sidecar(db).write_bytes(saved[:-9])  # cut short
    assert unchanged.ask(db, ws.sources, []).load_stored() is None
    unchanged.files_sidecar(db).write_bytes(b"0" * 64 + saved[64:])
    assert unchanged.ask(db, ws.sources, []).load_stored() is None  # another sidecar's listing
    after = ingest(db, ws.sources)
    assert after.files_loaded == 1
    assert unchanged.check(db, ws.sources, []) is not None


def test_the_digest_is_the_same_in_any_order() -> None:
    """``scan`` lists as the file system does, ``discover`` by path: the full run remembers
    one order, the no-op question finds the other."""
    files = {"/t/b.jsonl": [2, 20], "/t/a.jsonl": [1, 10], "/t/c.jsonl": [3, 30]}
    reordered = dict(sorted(files.items()))
    assert list(reordered) != list(files)
    assert _digest(files) == _digest(reordered)
    assert _digest(files) != _digest({**files, "/t/a.jsonl": [1, 11]})


def _stored_rows(db: Path) -> list[tuple[object, ...]]:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        files = con.execute(
            "select path, size_bytes, mtime_ns, consumed_bytes, consumed_lines, head_hash,"
            " context_json from raw_files order by path"
        ).fetchall()
        events = con.execute("select count(*), sum(hash(uuid)) from raw_events").fetchall()
        sessions = con.execute("select count(*), sum(hash(session_id)) from fct_sessions")
        return [*files, *events, *sessions.fetchall()]
    finally:
        con.close()


def test_a_sidecar_that_does_not_hold_still_hands_its_listing_to_the_run(
    tmp_path: Path,
) -> None:
    """No sidecar, other arguments, or a warehouse written since: the answer is no, and the
    files are listed and stat'ed all the same, so the run does not list them again. The run
    given that listing loads what a run given none loads."""
    ws = build_demo(tmp_path / "demo")
    db = tmp_path / "warehouse.duckdb"
    ingest(db, ws.sources)
    every = {source.path for source in discover(ws.sources)}

    def listed(asked: unchanged.Answer) -> dict[str, list[int]]:
        assert asked.report is None and asked.stats is not None
        return asked.stats

    unchanged.sidecar(db).unlink()
    stats = listed(unchanged.ask(db, ws.sources, []))
    assert set(stats) == every
    for path, stat in stats.items():
        info = os.stat(path)
        assert stat == [info.st_size, info.st_mtime_ns]
    ingest(db, ws.sources)  # remembered again
    other = listed(unchanged.ask(db, [ws.claude_projects], []))
    assert set(other) == {p for p in every if p.startswith(str(ws.claude_projects))} != every

    _append_a_line(ws)
    _new_transcript(ws)
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(db.read_bytes())  # the copy has no sidecar; the original's holds
    os.utime(db)  # now it does not either: the warehouse looks written since
    asked = unchanged.ask(db, ws.sources, [])
    assert listed(asked) and asked.stored is None  # raw_files says what is loaded
    with_listing = ingest_changed(db, ws.sources, [], asked=asked)
    without = ingest_changed(copy, ws.sources, [], asked=None)
    assert with_listing.files_loaded == without.files_loaded == 2
    assert with_listing.lines_loaded == without.lines_loaded
    assert _stored_rows(db) == _stored_rows(copy)
    assert unchanged.check(db, ws.sources, []) is not None


def _sidecar_digests(db: Path) -> tuple[str, str, str]:
    """The sidecar's digest, its listing's (the delta's when there is one, else the files'
    file's), and the digest of the files that listing holds."""
    main = json.loads(unchanged.sidecar(db).read_bytes())
    delta = unchanged.delta_sidecar(db)
    claimed = json.loads(delta.read_bytes())["digest"] if delta.exists() else _files_file(db)[0]
    found = unchanged._stored_files(db, claimed)
    assert found is not None
    return main["files"]["digest"], claimed, _digest(_stored_listing(found))


def test_the_sidecar_digest_is_always_of_the_files_it_lists(tmp_path: Path) -> None:
    """A run reuses the no-op question's digest only when it loaded every file as the
    question stat'ed it; a new file that grew between the question and its reading is
    stored at the size read, and hashed again."""
    ws = build_demo(tmp_path / "demo")
    db = tmp_path / "warehouse.duckdb"
    ingest(db, ws.sources)
    _new_transcript(ws)
    asked = unchanged.ask(db, ws.sources, [])
    assert asked.report is None and asked.digest is not None
    reused = ingest_changed(db, ws.sources, [], asked=asked)
    assert reused.listing_digest == asked.digest  # loaded as stat'ed: the question's digest
    assert len(set(_sidecar_digests(db))) == 1

    new = next(ws.claude_projects.rglob("00000000-0000-4000-8000-00000000abcd.jsonl"))
    os.utime(new, ns=(0, os.stat(new).st_mtime_ns + 10**9))  # touched: the run reads it
    asked = unchanged.ask(db, ws.sources, [])
    with new.open("a", encoding="utf-8") as handle:  # grows after the question
        handle.write("not json\n")
    grown = ingest_changed(db, ws.sources, [], asked=asked)
    assert grown.files_loaded == 1 and grown.listing_digest is None
    assert len(set(_sidecar_digests(db))) == 1
    assert unchanged.check(db, ws.sources, []) is not None


def _listing_now(ws: DemoWorkspace) -> dict[str, list[int]]:
    stats = unchanged.ask(Path("/nonexistent/w.duckdb"), ws.sources, []).stats
    assert stats is not None
    return stats


def _remembered(db: Path) -> dict[str, list[int]]:
    main = json.loads(unchanged.sidecar(db).read_bytes())
    found = unchanged._stored_files(db, main["files"]["digest"])
    assert found is not None
    return _stored_listing(found)


def test_a_few_changed_files_are_remembered_as_a_delta_of_the_listing(tmp_path: Path) -> None:
    """A run that changes a few files writes what changed (``delta_sidecar``), bound to the
    files' file it read, and leaves that file as it was; many changes write it whole."""
    ws = build_demo(tmp_path / "demo")
    db = tmp_path / "warehouse.duckdb"
    ingest(db, ws.sources)
    whole = unchanged.files_sidecar(db).read_bytes()
    assert not unchanged.delta_sidecar(db).exists()

    _new_transcript(ws)
    new = next(ws.claude_projects.rglob("00000000-0000-4000-8000-00000000abcd.jsonl"))
    assert ingest(db, ws.sources).files_loaded == 1
    assert unchanged.files_sidecar(db).read_bytes() == whole  # not written again
    delta = json.loads(unchanged.delta_sidecar(db).read_bytes())
    info = os.stat(new)
    assert _listing_of({e.encode() for e in delta["added"]}) == {
        str(new): [info.st_size, info.st_mtime_ns]
    }
    assert delta["dropped"] == [] and delta["base"] == whole.partition(b"\n")[0].decode()
    assert _remembered(db) == _listing_now(ws)
    assert unchanged.check(db, ws.sources, []) is not None

    gone = sorted(ws.claude_projects.rglob("*.jsonl"))[-1]
    gone.unlink()  # a file that disappears leaves the listing; the delta builds on the same
    assert ingest(db, ws.sources).files_loaded == 0
    delta = json.loads(unchanged.delta_sidecar(db).read_bytes())
    assert list(_listing_of({e.encode() for e in delta["dropped"]})) == [str(gone)]
    assert str(new) in _listing_of({e.encode() for e in delta["added"]})
    assert unchanged.files_sidecar(db).read_bytes() == whole
    assert _remembered(db) == _listing_now(ws)
    assert unchanged.check(db, ws.sources, []) is not None

    # a file back at the size and mtime the files' file holds, after a delta dropped that
    # entry, differs from the stored listing: the delta's, not the file's
    back = sorted(ws.claude_projects.rglob("*.jsonl"))[1]
    first = os.stat(back).st_mtime_ns
    os.utime(back, ns=(0, first + 10**9))
    assert ingest(db, ws.sources).files_loaded == 1
    os.utime(back, ns=(0, first))
    assert unchanged.ask(db, ws.sources, []).changed() == [str(back)]
    assert ingest(db, ws.sources).files_loaded == 1
    assert _remembered(db) == _listing_now(ws)

    # a delta made from another files' file is not applied: the run reads raw_files
    unchanged.delta_sidecar(db).write_bytes(json.dumps({**delta, "base": "0" * 64}).encode())
    _append_a_line(ws)
    asked = unchanged.ask(db, ws.sources, [])
    assert asked.report is None and asked.load_stored() is None
    assert ingest_changed(db, ws.sources, [], asked=asked).files_loaded == 1

    whole = unchanged.files_sidecar(db).read_bytes()  # written whole: it had no base
    assert not unchanged.delta_sidecar(db).exists()
    listed = sorted(_listing_now(ws))
    for path in listed[: len(listed) // 16 + 1]:  # more than a sixteenth of them
        os.utime(path, ns=(0, os.stat(path).st_mtime_ns + 10**9))
    ingest(db, ws.sources)
    assert not unchanged.delta_sidecar(db).exists()
    assert unchanged.files_sidecar(db).read_bytes() != whole
    assert _remembered(db) == _listing_now(ws)
    assert unchanged.check(db, ws.sources, []) is not None


def _differences(now: bytes, stored: bytes) -> tuple[set[bytes], set[bytes]]:
    start, end = unchanged._region(now, 0)
    stored_start, stored_end = unchanged._region(stored, 0)
    return unchanged._differences(now, start, end, stored, stored_start, stored_end)


def test_only_listed_files_are_said_to_have_changed(tmp_path: Path) -> None:
    """A delta that drops an entry its files' file never held (none is written so, but its
    digests can be copied) does not make the run load a file outside the listing."""
    ws = build_demo(tmp_path / "demo")
    db = tmp_path / "warehouse.duckdb"
    ingest(db, ws.sources)
    outside = tmp_path / "elsewhere" / "00000000-0000-4000-8000-00000000beef.jsonl"
    outside.parent.mkdir()
    outside.write_bytes(sorted(ws.claude_projects.rglob("*.jsonl"))[0].read_bytes())
    _append_a_line(ws)
    asked = unchanged.ask(db, ws.sources, [])
    assert asked.digest is not None
    forged = orjson.dumps({str(outside): [1, 2]})[2:-2].decode()
    base = _files_file(db)[0]
    delta = {"base": base, "digest": asked.digest, "dropped": [forged], "added": []}
    unchanged.delta_sidecar(db).write_bytes(json.dumps(delta).encode())
    asked.stored_from = (db, asked.digest)  # as when the sidecar names that digest
    appended = str(sorted(ws.claude_projects.rglob("*.jsonl"))[0])
    assert asked.changed() == [appended]


@pytest.mark.parametrize("bad", [b"\\q", b"\xff"], ids=["bad escape", "not UTF-8"])
def test_a_files_file_this_code_did_not_write_never_stops_the_run(
    tmp_path: Path, bad: bytes
) -> None:
    """A files' file whose digest's line holds but whose text was altered (a key that is no
    JSON string) is not this code's: the run reads raw_files instead, as with no sidecar,
    loads what changed, and writes the listing whole again."""
    ws = build_demo(tmp_path / "demo")
    db = tmp_path / "warehouse.duckdb"
    ingest(db, ws.sources)
    files = unchanged.files_sidecar(db)
    appended = sorted(ws.claude_projects.rglob("*.jsonl"))[0]
    key = orjson.dumps(str(appended))[1:-1]
    altered = files.read_bytes().replace(key + b'":[', key[:-6] + bad + b'.jsonl":[')
    assert bad in altered
    files.write_bytes(altered)
    _append_a_line(ws)
    asked = unchanged.ask(db, ws.sources, [])
    if bad == b"\\q":  # the walk meets the key: as with no files' file
        assert asked.changed() is None and asked.load_stored() is None
    assert ingest_changed(db, ws.sources, [], asked=asked).files_loaded == 1
    assert bad not in files.read_bytes()
    assert unchanged.check(db, ws.sources, []) is not None


def test_a_delta_holds_no_more_entries_than_the_walk_compares_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``_DELTA_ENTRIES`` differences (here 1) from the files' file the listing is
    written whole, so the next +1 walks from a fresh files' file rather than comparing the
    rest of a long delta as sets."""
    monkeypatch.setattr(unchanged, "_DELTA_ENTRIES", 1)
    ws = build_demo(tmp_path / "demo")
    db = tmp_path / "warehouse.duckdb"
    ingest(db, ws.sources)
    whole = unchanged.files_sidecar(db).read_bytes()
    _new_transcript(ws)  # one entry added
    ingest(db, ws.sources)
    assert unchanged.delta_sidecar(db).exists()
    assert unchanged.files_sidecar(db).read_bytes() == whole
    touched = sorted(ws.claude_projects.rglob("*.jsonl"))[-1]  # one the files' file holds
    os.utime(touched, ns=(0, os.stat(touched).st_mtime_ns + 10**9))
    ingest(db, ws.sources)  # its entry dropped and added: three from the files' file
    assert not unchanged.delta_sidecar(db).exists()
    assert unchanged.files_sidecar(db).read_bytes() != whole
    assert _remembered(db) == _listing_now(ws)


def test_listings_compare_as_their_texts_whatever_the_paths_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Walking two listings' texts side by side finds the entries a set of each text's
    entries finds, and the paths a comparison of the dicts finds, also for names holding the
    texts the walk cuts at, quotes, backslashes, control characters and non-ASCII, numbers
    of any size, blocks of a few bytes that end anywhere in an entry, and walks that hand
    the rest to sets after a few differences. Texts in another order (none is written so)
    may show more entries, never fewer."""
    import random

    odd = ['a],"b', 'q"":[x', "back\\slash", "new\nline", "tab\t", "é/日本", "\x00", '":[', "]}"]
    odd += ["/p/é", "/p/z", "/p/\x7f", "/p/\\", '/p/"', "/p/~"]  # orders that escapes change
    rng = random.Random(14)
    sort = orjson.OPT_SORT_KEYS
    for trial in range(600):
        monkeypatch.setattr(unchanged, "_BLOCK", rng.choice([1, 2, 3, 7, 64, 65536]))
        monkeypatch.setattr(unchanged, "_WALKED_DIFFERENCES", rng.choice([0, 1, 3, 1024]))
        names = rng.sample(odd + [f"/p/{i}.jsonl" for i in range(40)], rng.randint(0, 30))
        before = {n: [rng.randint(0, 3), rng.choice([0, 1, 2**62])] for n in names}
        after = dict(before) if trial % 3 else {}
        for n in rng.sample(names, rng.randint(0, len(names))):
            after[n] = [rng.randint(0, 3), rng.choice([0, 1, 2**62])]
        after.update({n: [1, 1] for n in rng.sample(odd, rng.randint(0, 3))})
        for n in rng.sample(list(after), rng.randint(0, len(after) // 3)):
            del after[n]
        expected = sorted(path for path, stat in after.items() if before.get(path) != stat)
        now, stored = orjson.dumps(after, option=sort), orjson.dumps(before, option=sort)
        added, dropped = _differences(now, stored)
        assert added == _entries(now) - _entries(stored)
        assert dropped == _entries(stored) - _entries(now)
        assert sorted(map(unchanged._entry_path, added)) == expected
        assert _listing_of(_entries(stored)) == before
        unsorted_added, unsorted_dropped = _differences(orjson.dumps(after), orjson.dumps(before))
        assert unsorted_added >= added and unsorted_dropped >= dropped
    assert _differences(b"{}", b"{}") == (set(), set())
    for cut in (b'{"a":[1,2],"b":[3,4', b'{"a":[1,2', b"{", b"", b'{"a":[1,2]} '):
        with pytest.raises(ValueError):
            unchanged._region(cut, 0)


def test_the_walk_cuts_out_only_the_entries_where_the_listings_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a +1 pays for comparing listings grows with what changed, not with the files:
    the texts' equal runs are passed over whole, and only the entries around a change are
    cut out (the entry that changed and, at most, the one before it); and no more than a
    budget of them when most changed."""
    cut: list[bytes] = []
    entry = unchanged._entry

    def counted(text: bytes, start: int, end: int) -> tuple[bytes, int]:
        found = entry(text, start, end)
        cut.append(found[0])
        return found

    monkeypatch.setattr(unchanged, "_entry", counted)
    before = {f"/p/{i:05}.jsonl": [i, 10**18 + i] for i in range(5000)}
    after = {**before, "/p/02500.jsonl": [1, 2], "/p/04000x.jsonl": [3, 4]}
    del after["/p/01000.jsonl"]
    now, stored = (
        orjson.dumps(listing, option=orjson.OPT_SORT_KEYS) for listing in (after, before)
    )
    added, dropped = _differences(now, stored)
    assert sorted(map(unchanged._entry_path, added)) == ["/p/02500.jsonl", "/p/04000x.jsonl"]
    assert sorted(map(unchanged._entry_path, dropped)) == ["/p/01000.jsonl", "/p/02500.jsonl"]
    assert len(cut) <= 2 * 2 * 3  # two entries a side at each of the three changes

    cut.clear()  # every file touched: past a budget of differences, the rest goes to sets
    touched = {path: [size, mtime + 1] for path, (size, mtime) in before.items()}
    now = orjson.dumps(touched, option=orjson.OPT_SORT_KEYS)
    added, dropped = _differences(now, stored)
    assert len(added) == len(dropped) == 5000
    assert len(cut) <= 2 * (unchanged._WALKED_DIFFERENCES + 2)


def test_a_listed_file_the_loader_does_not_take_is_never_remembered(tmp_path: Path) -> None:
    """Were the question's listing to hold a file that is no transcript (the loader takes
    none such), the stored listing says it changed, and the run must not remember it as
    loaded: the sidecar is not written, and the next run asks again."""
    ws = build_demo(tmp_path / "demo")
    db = tmp_path / "warehouse.duckdb"
    ingest(db, ws.sources)
    _new_transcript(ws)
    asked = unchanged.ask(db, ws.sources, [])
    assert asked.stats is not None and asked.changed() is not None
    stray = ws.claude_projects / "notes.txt"
    stray.write_text("not a transcript\n")
    asked.stats[str(stray)] = [stray.stat().st_size, stray.stat().st_mtime_ns]
    asked.listing_text = unchanged._listing_text(asked.stats)
    asked._changed = None
    assert str(stray) in (asked.changed() or [])
    report = ingest_changed(db, ws.sources, [], asked=asked)
    assert report.files_loaded == 1 and report.listing is None
    assert not unchanged.sidecar(db).exists()
