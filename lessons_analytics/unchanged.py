"""The no-op run: tell, from the file system alone, that an ingest would change nothing.

After each run that ends with a warehouse built from these exact files, ``remember`` writes
a sidecar next to the warehouse (``<warehouse>.unchanged.json``): the run's arguments, a
digest of every listed transcript's size and mtime as the warehouse stored them (the sizes
and mtimes themselves go to a second file, ``<warehouse>.unchanged.files.json``, read only
by a run that goes on to ingest), the working directories and the bases they stand in with
the bases' fingerprints, the fingerprints of the code that decides the result (the sql/
models, the raw schema), the warehouse file's own size and mtime, and the run's report.
``check`` lists and stats the files again (no Polars, no DuckDB) and, when every one of
these is the same, returns the stored report: the ingest it
stands for would skip every file (same size and mtime), re-read no base (same
fingerprints), link no new base (same LESSONS/ folders above every cwd) and rebuild nothing
(same models and a warehouse nobody wrote since). Anything else, including a sidecar that
cannot be read, means the full run, which is always right; a listing with an unreadable
file or folder is never remembered, since the full run reports it again each time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

# the sidecar holds a size and mtime per file (2 MB for 14k files): orjson reads and writes it
# in a tenth of the json module's time
import orjson

from lessons_analytics import __version__
from lessons_analytics.lessonbase import locate
from lessons_analytics.sources import SourceFile, discover, scan

if TYPE_CHECKING:
    import duckdb

    from lessons_analytics.documents import IngestDocument

ERRORS_SHOWN = 100
_FORMAT = 3  # 3: the files' file is its digest's line, then its listing's JSON text


class Listing(TypedDict):
    """What the sidecar (with its files' file) holds of the file system besides the run's
    arguments and report."""

    files: dict[str, list[int]]  # path -> [size, mtime_ns]
    links: dict[str, list[str]]  # cwd -> the bases above it, nearest first
    fingerprints: dict[str, str]  # base path -> fingerprint
    salt: str


@dataclass
class IngestReport:
    files_seen: int = 0
    files_loaded: int = 0
    lines_loaded: int = 0
    changed: bool = False
    build: str | None = None  # "full" or "incremental" when the layers were (re)built
    totals: dict[str, Any] = field(default_factory=dict)
    # what `remember` stores once the warehouse is closed (None: not rememberable)
    listing: Listing | None = field(default=None, repr=False)
    # the digest of ``listing``'s files when the run knows it already (the no-op question
    # made it of the same sizes and mtimes): ``remember`` then does not hash them again
    listing_digest: str | None = field(default=None, repr=False)

    def document(self) -> IngestDocument:
        """The ``ingest --json`` document of cli.md."""
        # totals is totals()'s dict: test_documents holds its keys to IngestTotals
        doc = {
            "files_seen": self.files_seen,
            "files_loaded": self.files_loaded,
            "lines_loaded": self.lines_loaded,
            **self.totals,
            "errors": self.totals.get("errors", [])[:ERRORS_SHOWN],
        }
        return cast("IngestDocument", doc)


def sidecar(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".unchanged.json")


def files_sidecar(db_path: Path) -> Path:
    """The sidecar's listing: every file's size and mtime, apart from the digest the no-op
    question compares. At 55,575 files (D at 1.25 GB) it is 8 MB, whose reading and
    comparing took 0.1 s of a 0.64 s no-op; the digest of the new listing takes 0.03 s."""
    return db_path.with_name(db_path.name + ".unchanged.files.json")


def delta_sidecar(db_path: Path) -> Path:
    """What changed in the listing since the files' file was written: a run that changes a
    few files writes this, not the whole listing again (``remember``)."""
    return db_path.with_name(db_path.name + ".unchanged.delta.json")


# A listing that differs from the files' file in more entries than this, or than a sixteenth
# of its own, is written whole again: a delta's entries are read one by one, and rewriting
# the whole listing costs a +1 of D at 1.25 GB (7.7 MB) 20-80 ms: encoding it, writing it,
# and the file system's flush when it replaces a file. Each +1 walks its listing against
# the files' file (``_differences``), which compares past this many differences as sets
# (85 ms on D): a delta kept under it keeps every walk short, for a whole listing written
# once every thousand-odd changed entries (it was 4,096: the runs between paid the sets).
_DELTA_ENTRIES = 1024


def _listing_text(files: dict[str, list[int]]) -> bytes:
    """The listing's JSON text as its digest hashes it, the same whatever order it was made
    in: ``scan`` walks the folders as the file system lists them, ``discover`` sorts by path
    (orjson sorts the keys in Rust)."""
    return orjson.dumps(files, option=orjson.OPT_SORT_KEYS)


def _digest_of(text: bytes) -> str:
    """The digest of a listing's text (``_listing_text``). (SHA-256 has the CPU's
    instructions here and is twice blake2b's speed on 8 MB.)"""
    return hashlib.sha256(text).hexdigest()


# A +1 compares the listing it made with the one stored by the run before as their JSON texts,
# which are the same bytes for the same entries: both are sorted by path (``_listing_text``)
# and an entry, ``path":[size,mtime``, reads the same wherever it stands. So the two texts
# are walked side by side (``_differences``), long runs of equal bytes compared in C 64 KB
# at a time, and only where they differ are entries cut out and compared one by one. At
# 55,900 files (D at 1.25 GB) a set of each text's 56k entries cost 85 ms of a +1: splitting
# the two texts copies 15 MB into new memory, which this machine pays for in page faults
# (17 ms a split). No key holds ``],"``, as orjson escapes a quote inside a string.
_BETWEEN_ENTRIES = b'],"'
_KEY_END = b'":['
_BLOCK = 65536  # bytes compared at once while the texts agree
# Past as many entries found on either side as a delta may hold, the rest of the two texts is
# compared as sets of their entries: a change costs the walk some 30 us (a block halved down
# to the byte where the texts part, then the entries there), and a set of D's 56k entries
# costs 85 ms in all, so a run that touched most files (a restore, a copy) is not walked
# entry by entry.
_WALKED_DIFFERENCES = _DELTA_ENTRIES


def _region(text: bytes, offset: int) -> tuple[int, int]:
    """Where the entries of the listing's JSON text at ``offset`` in ``text`` (to its end)
    lie: ``text[start:end]`` is them joined by ``],"`` (empty for ``{}``). Raises ValueError
    for a text that is not one whole listing (a file cut short)."""
    if len(text) - offset == 2 and text.endswith(b"{}"):
        return len(text), len(text)
    if not (text.startswith(b'{"', offset) and text.endswith(b"]}")):
        raise ValueError("not a listing's text")
    return offset + 2, len(text) - 2


def _shared_prefix(a_text: bytes, a: int, a_end: int, b_text: bytes, b: int, b_end: int) -> int:
    """The length of the longest common prefix of ``a_text[a:a_end]`` and
    ``b_text[b:b_end]``: blocks of ``_BLOCK`` bytes while they agree, then halves of the
    block that does not."""
    limit = min(a_end - a, b_end - b)
    same, step = 0, _BLOCK
    while same < limit:
        size = min(step, limit - same)
        if b_text.startswith(a_text[a + same : a + same + size], b + same):
            same += size
        elif size == 1:
            break
        else:
            step = size // 2
    return same


def _entry(text: bytes, start: int, end: int) -> tuple[bytes, int]:
    """The entry at ``start`` of a listing's entries ending at ``end``, and where the next
    one starts (``end`` after the last)."""
    cut = text.find(_BETWEEN_ENTRIES, start, end)
    if cut == -1:
        return text[start:end], end
    return text[start:cut], cut + len(_BETWEEN_ENTRIES)


def _precedes(one: bytes, other: bytes) -> bool:
    """Whether entry ``one`` stands before entry ``other`` in a listing sorted by path. orjson
    sorts keys by their UTF-8 bytes, which order the keys' text the same way unless an
    escape stands in one (a quote, a backslash or a control character): then the paths
    themselves are compared."""
    first, second = one.rpartition(_KEY_END)[0], other.rpartition(_KEY_END)[0]
    if b"\\" in first or b"\\" in second:
        return _entry_path(one) < _entry_path(other)
    return first < second


def _differences(
    a_text: bytes, a: int, a_end: int, b_text: bytes, b: int, b_end: int
) -> tuple[set[bytes], set[bytes]]:
    """The entries of the listing entries ``a_text[a:a_end]`` that ``b_text[b:b_end]``
    lacks, and those it lacks of them (``_region``), walking both at once: the same bytes
    are skipped, and where they part the entries are merged by path. An entry is passed
    over only where the other text holds the very same bytes, so whatever the texts' order
    every entry one lacks is found; sorted by path, as every listing text is, nothing else
    is."""
    a_only: set[bytes] = set()
    b_only: set[bytes] = set()
    while a < a_end and b < b_end and len(a_only) + len(b_only) <= _WALKED_DIFFERENCES:
        same = _shared_prefix(a_text, a, a_end, b_text, b, b_end)
        if a + same == a_end and b + same == b_end:
            return a_only, b_only
        # back to the start of the entry the texts part in (it is an entry's in both)
        cut = a_text.rfind(_BETWEEN_ENTRIES, a, a + same)
        if cut != -1:
            b += cut + len(_BETWEEN_ENTRIES) - a
            a = cut + len(_BETWEEN_ENTRIES)
        a_entry, a_next = _entry(a_text, a, a_end)
        b_entry, b_next = _entry(b_text, b, b_end)
        if a_entry == b_entry:
            a, b = a_next, b_next
        elif _precedes(a_entry, b_entry):
            a_only.add(a_entry)
            a = a_next
        else:  # b's comes first, or it is the same path at another size or mtime
            b_only.add(b_entry)
            b = b_next
    # what is left of either: no entry before ``a`` or ``b`` stands after them in the other
    a_rest = set(a_text[a:a_end].split(_BETWEEN_ENTRIES)) if a < a_end else set()
    b_rest = set(b_text[b:b_end].split(_BETWEEN_ENTRIES)) if b < b_end else set()
    return a_only | (a_rest - b_rest), b_only | (b_rest - a_rest)


def _entry_path(entry: bytes) -> str:
    """The path of an entry: the key before the last ``":[`` (the numbers hold none)."""
    key = entry.rpartition(_KEY_END)[0]
    path: str = orjson.loads(b'"' + key + b'"')
    return path


@dataclass
class Stored:
    """The listing the sidecar remembers: the files' file's (its digest, and its bytes
    ``text`` whose entries are ``text[start:end]``, ``_region``), less the delta's
    ``dropped`` entries and with its ``added``."""

    digest: str  # the files' file's
    text: bytes
    start: int
    end: int
    dropped: set[bytes] = field(default_factory=set)
    added: set[bytes] = field(default_factory=set)

    def differences(self, listing_text: bytes) -> tuple[set[bytes], set[bytes]]:
        """The entries of ``listing_text`` (a listing's JSON text) that the files' file
        lacks, and those of the files' file that it lacks."""
        start, end = _region(listing_text, 0)
        return _differences(listing_text, start, end, self.text, self.start, self.end)


def _arguments(paths: list[Path], extra_bases: list[Path]) -> dict[str, list[str]]:
    return {
        "paths": [os.path.abspath(os.path.expanduser(p)) for p in paths],
        "bases": [os.path.abspath(os.path.expanduser(p)) for p in extra_bases],
    }


@functools.cache
def code_fingerprint() -> str:
    """The package version, the sql/ models and the raw schema: what a rebuild depends on.
    Computed once per process: the question and the sidecar of one run ask it, and the
    package's own files do not change under a running process."""
    from lessons_analytics.sqlfiles import digest_models

    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    digest_models(digest)
    schema = Path(__file__).with_name("schema.py")
    digest.update(schema.name.encode())
    digest.update(schema.read_bytes())
    return digest.hexdigest()


def _warehouse_stat(db_path: Path) -> list[int] | None:
    try:
        info = os.stat(db_path)
    except OSError:
        return None
    wal = Path(str(db_path) + ".wal")
    wal_size = wal.stat().st_size if wal.exists() else -1
    return [info.st_size, info.st_mtime_ns, wal_size]


def _listing(sources: list[SourceFile]) -> dict[str, list[int]] | None:
    """Size and mtime of every listed file; None when one cannot be read."""
    found: dict[str, list[int]] = {}
    for source in sources:
        if source.problem is not None:
            return None
        try:
            info = os.stat(source.path)
        except (OSError, ValueError):
            return None
        found[source.path] = [info.st_size, info.st_mtime_ns]
    return found


def _links(cwds: list[str]) -> dict[str, list[str]]:
    locate.clear_discovery_cache()  # the file system now, not as this process saw it
    return {cwd: [str(base) for base in locate.discover_bases(cwd)] for cwd in cwds}


def _fingerprints(
    links: dict[str, list[str]], extra_bases: list[Path], salt: str
) -> dict[str, str]:
    """The fingerprint of every base a run reads, as ``ingest`` computes it."""
    wanted = {base for bases in links.values() for base in bases}
    for path in extra_bases:
        wanted.add(str(locate.resolve_base(path)))
    return {base: locate.fingerprint(Path(base), salt) for base in sorted(wanted)}


@dataclass
class Answer:
    """What ``ask`` found: the stored report when the run would change nothing, and the
    listing it made on the way (None when it stopped before listing), which the run that
    follows may use instead of walking the folders again."""

    report: IngestReport | None = None
    # size and mtime of every listed file then (None: not reached, or a file unreadable);
    # its keys are the listing
    stats: dict[str, list[int]] | None = None
    # the listing as ``discover`` gives it, made only when ``scan`` found a problem
    sources: list[SourceFile] | None = None
    # with ``stats``: the sidecar's size and mtime of every file listed at the last run,
    # which are raw_files' (the sidecar is written only when they agree, and the warehouse
    # was not written since), so the run need not read raw_files whole to find new files;
    # None when the files' file is missing or not the sidecar's own. Read by ``load_stored``
    stored: Stored | None = None
    # with ``stats``, their digest and the text it is of, when the sidecar was there to
    # compare it with
    digest: str | None = None
    listing_text: bytes | None = None
    # the warehouse and the digest of the listing ``load_stored`` reads, until it does
    stored_from: tuple[Path, str] | None = None
    _changed: list[str] | None = field(default=None, repr=False)
    # the entries of ``stats`` (its ``listing_text``) that the files' file lacks, and those
    # of the files' file that ``stats`` lacks: its delta, were it the listing remembered
    delta: tuple[set[bytes], set[bytes]] | None = field(default=None, repr=False)

    def load_stored(self) -> Stored | None:
        """``stored``, read from the sidecar's files on first use rather than by ``ask``:
        the run that goes on to ingest reads them while the warehouse opens."""
        if self.stored_from is not None:
            self.stored = _stored_files(*self.stored_from)
            self.stored_from = None
        return self.stored

    def changed(self) -> list[str] | None:
        """The listed paths, by path, whose size or mtime differ from the stored listing's
        (or that it lacks); None without a stored listing to compare with."""
        if self._changed is None:
            stored = self.load_stored()
            if stored is None or self.listing_text is None:
                return None
            listed = self.stats or {}
            try:
                added, dropped = stored.differences(self.listing_text)
                # now less the stored listing: what the files' file lacks or the delta
                # dropped, less what the delta added; an entry the delta dropped is now's
                # unless the files' file alone holds it (it drops only entries of that file)
                differ = (added | (stored.dropped - dropped)) - stored.added
                changed = sorted(p for p in map(_entry_path, differ) if p in listed)
            except ValueError:  # a key that is no JSON string: not this code's files' file
                self.stored = None  # raw_files says what is loaded, as with no sidecar
                return None
            self.delta, self._changed = (added, dropped), changed
        return self._changed


def check(db_path: Path, paths: list[Path], extra_bases: list[Path]) -> IngestReport | None:
    """The stored report when an ingest of ``paths`` would change nothing, else None."""
    return ask(db_path, paths, extra_bases).report


def ask(db_path: Path, paths: list[Path], extra_bases: list[Path]) -> Answer:
    """``check``, keeping the listing it made. The files are listed and stat'ed even when
    the sidecar already says no (none yet, other arguments, another warehouse stat or
    code): the run that follows then uses that listing instead of walking the folders,
    stat'ing every file twice more and reading every file's state from raw_files (a run
    that adds a session to D with its sidecar out of date: see CHANGELOG)."""
    question = [str(db_path), _arguments(paths, extra_bases), _warehouse_stat(db_path)]
    answer = Answer()
    try:
        stored = _held(db_path, question)
        # the listing and stats in one pass; the long way only when it finds a problem
        answer.stats = scan(paths)
        if answer.stats is None:
            answer.sources = discover(paths)
            answer.stats = _listing(answer.sources)
        if answer.stats is None or stored is None:
            return answer
        answer.listing_text = _listing_text(answer.stats)
        answer.digest = _digest_of(answer.listing_text)
        if answer.digest != stored["files"]["digest"]:
            answer.stored_from = (db_path, stored["files"]["digest"])
            return answer
        links = _links(list(stored["links"]))
        if links != stored["links"]:
            return answer
        if _fingerprints(links, extra_bases, stored["salt"]) != stored["fingerprints"]:
            return answer
    except Exception:  # anything unexpected: the full run decides (and lists again)
        return Answer()
    answer.report = IngestReport(files_seen=stored["files"]["count"], totals=stored["totals"])
    return answer


def _held(db_path: Path, question: list[Any]) -> dict[str, Any] | None:
    """The sidecar, when it was written by this code for these arguments and the warehouse
    was not written since; None otherwise (none, unreadable, or any of those differs)."""
    try:
        stored: dict[str, Any] = orjson.loads(sidecar(db_path).read_bytes())
        if stored.get("format") != _FORMAT or stored["warehouse"] != question[2]:
            return None
        if stored["arguments"] != question[1] or stored["code"] != code_fingerprint():
            return None
    except Exception:  # noqa: BLE001 - no sidecar to trust: the run goes on in full
        return None
    return stored


def _stored_files(db_path: Path, digest: str) -> Stored | None:
    """The listing the sidecar's digest was made of; None when a file is missing, cut short
    or unreadable, or another sidecar's (a run stopped between writing them). It is the
    files' file's when their digests agree, else that file's with the delta's entries
    dropped and added, when the delta says it was made from that file to that digest."""
    try:
        text = files_sidecar(db_path).read_bytes()
        line_end = text.index(b"\n")
        stored = Stored(text[:line_end].decode("ascii"), text, *_region(text, line_end + 1))
        if stored.digest == digest:
            return stored
        delta = orjson.loads(delta_sidecar(db_path).read_bytes())
        if delta["base"] != stored.digest or delta["digest"] != digest:
            return None
        stored.dropped = {entry.encode() for entry in delta["dropped"]}
        stored.added = {entry.encode() for entry in delta["added"]}
    except Exception:  # the run then reads raw_files instead
        return None
    return stored


def listing_of(
    con: duckdb.DuckDBPyConnection,
    sources: list[SourceFile] | None,
    extra_bases: list[Path],
    salt: str,
    now: dict[str, list[int]] | None = None,
    links: dict[str, list[str]] | None = None,
    stored: dict[str, list[int]] | None = None,
) -> Listing | None:
    """What ``remember`` stores, checked against the warehouse inside the run: the files
    (only when it recorded every listed one, unchanged since), every working directory with
    the bases above it (as its cwd links say) and the bases' fingerprints (as it stored
    them). None when any of them disagrees: the next run then does the whole job.

    ``now`` (the files' sizes and mtimes), ``links`` (every working directory of the
    warehouse with its bases) and ``stored`` (raw_files' sizes and mtimes) may come from
    earlier in the run, which saves a second stat of every file, a scan of the raw events
    and one of raw_files: a file or a base that changed since they were taken differs at
    the next ``check``, which then runs in full. Without ``now`` nor ``sources`` the run
    is not remembered."""
    if stored is None:
        stored = {
            path: [size, mtime]
            for path, size, mtime in con.execute(
                "select path, size_bytes, mtime_ns from raw_files"
            ).fetchall()
        }
    if now is None:
        now = _listing(sources) if sources is not None else None
    # the same dicts (the usual case) compare in C; else every listed file is looked up
    if now is None or (
        stored != now and any(stored.get(path) != stat for path, stat in now.items())
    ):
        return None
    if links is None:
        cwds = sorted(
            row[0]
            for row in con.execute(
                "select cwd from raw_events where cwd is not null"
                " union select cwd from raw_tool_calls where cwd is not null"
            ).fetchall()
        )
        links = _links(cwds)
    rows = {(cwd, base, depth) for cwd, bases in links.items() for depth, base in enumerate(bases)}
    if rows != set(con.execute("select cwd, base_path, depth from raw_cwd_bases").fetchall()):
        return None
    try:
        fingerprints = _fingerprints(links, extra_bases, salt)
    except Exception:  # a --base that is no base: the full run says so each time
        return None
    if fingerprints != dict(con.execute("select base_path, fingerprint from raw_bases").fetchall()):
        return None
    return {"files": now, "links": links, "fingerprints": fingerprints, "salt": salt}


def remember(
    db_path: Path,
    paths: list[Path],
    extra_bases: list[Path],
    report: IngestReport,
    asked: Answer | None = None,
) -> None:
    """Write the sidecar of a finished run (the warehouse closed), or remove a stale one.
    Its listing is written first: a sidecar on disk always has its listing beside it,
    bound to it by the digest (``_stored_files``). ``asked``: the question the run went on
    from, with the files' file as the run read it (``Answer.stored``); a listing that
    differs from that file in a few entries is written as a delta of it, and the file is
    left as it is."""
    target = sidecar(db_path)
    for stale in (target, delta_sidecar(db_path)):
        with contextlib.suppress(OSError):
            stale.unlink()
    if report.listing is None:
        with contextlib.suppress(OSError):
            files_sidecar(db_path).unlink()
        return
    # a key that is no string (by_tool's None, a call without a tool name) is written as
    # `ingest --json` prints it ("null"); a document that still cannot be written leaves no
    # sidecar, which costs the next run its shortcut, never the run itself
    with contextlib.suppress(OSError, TypeError):
        files = report.listing["files"]
        text, digest = _text_and_digest(files, report.listing_digest, asked)
        stored = asked.load_stored() if asked is not None else None
        delta = None
        if asked is not None and stored is not None:
            delta = _delta(asked, stored, text, len(files), digest)
        if stored is not None and delta is not None:
            _replace(delta_sidecar(db_path), {"base": stored.digest, "digest": digest, **delta})
        else:
            _write(files_sidecar(db_path), digest.encode("ascii") + b"\n" + text)
        document = {
            "format": _FORMAT,
            "warehouse": _warehouse_stat(db_path),
            "arguments": _arguments(paths, extra_bases),
            "code": code_fingerprint(),
            **report.listing,
            "files": {"count": len(files), "digest": digest},
            "totals": report.totals,
        }
        _replace(target, document)


def _text_and_digest(
    files: dict[str, list[int]], digest: str | None, asked: Answer | None
) -> tuple[bytes, str]:
    """The listing's text and digest: the question's own when the run remembers the
    listing the question made (``digest`` is then the question's), else made here once,
    for the digest, the delta and the files' file alike."""
    question = asked.listing_text if asked is not None and digest == asked.digest else None
    if digest is not None and question is not None:
        return question, digest
    text = _listing_text(files)
    return text, _digest_of(text)


def _delta(
    asked: Answer, stored: Stored, text: bytes, count: int, digest: str
) -> dict[str, list[str]] | None:
    """The listing of ``count`` files whose text is ``text`` (of ``digest``) as the entries
    to drop from the files' file and to add, or None when they are too many to be worth a
    delta (``_DELTA_ENTRIES``). When it is the question's own listing (its digest), the
    question has them already."""
    try:
        if asked.delta is not None and digest == asked.digest:
            added, dropped = asked.delta
        else:
            added, dropped = stored.differences(text)
        if len(added) + len(dropped) > min(_DELTA_ENTRIES, count // 16):
            return None
        return {
            "dropped": sorted(entry.decode() for entry in dropped),
            "added": sorted(entry.decode() for entry in added),
        }
    except ValueError:  # a files' file this code did not write (not UTF-8): written whole
        return None


def _replace(target: Path, document: dict[str, Any]) -> None:
    _write(target, orjson.dumps(document, option=orjson.OPT_NON_STR_KEYS))


def _write(target: Path, data: bytes) -> None:
    """``data`` as the whole of ``target``, which holds either it or what it held before."""
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)
