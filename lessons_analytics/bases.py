"""Read a lesson base (``LESSONS/``): files, hit journals, INDEX.md layout and git history.

The package never writes here (the sleep marker is written elsewhere). Every parse is
forgiving: a broken front matter or journal line becomes an ``errors`` row, never a crash.
Git history is read with one ``git log`` and one ``git cat-file --batch`` per base, so a
base with hundreds of commits loads in a few subprocess calls.
"""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import frontmatter
import yaml

from lessons_analytics.errors import BaseNotFound

LESSONS_DIR = "LESSONS"
LESSON_NAME = re.compile(r"^(L-\d+)(?![0-9])[^/]*\.md$")
STATUSES = ("candidate", "active", "deferred", "retired")
NOT_HIT_DEFECTS = ("form-only", "none")
_JOURNAL_HEADING = re.compile(r"^##\s+(hits|журнал повторов)\b", re.IGNORECASE)
_H2 = re.compile(r"^##(?!#)\s*(.*?)\s*#*\s*$")
_RULE = re.compile(r"^\s*(?:\*\*)?(rule|правило)\s*:\s*(?:\*\*)?\s*", re.IGNORECASE)
# A new paragraph key (Why:, Почему:, How to apply:) starts at column 0 with a capital.
_PARAGRAPH_KEY = re.compile(r"^(?:\*\*)?[A-ZА-ЯЁ][\w-]*(?: [\w-]+){0,2}\s*:(?:\*\*)?(?:\s|$)")
_ITEM = re.compile(r"^\s*[-*]\s+(.*)$")
_DATE_HEAD = re.compile(r"^(\d{4}-\d{2}-\d{2})(?![\dT:])\s*(.*)$")
_SEPARATORS = re.compile(r"\s+[·|]\s+|;\s+")
_KEY_VALUE = re.compile(r"^([^\W\d][\w-]*)\s*:\s*(.*)$", re.UNICODE)
_MARKER = re.compile(r"^\s*<!--\s*sleep-due\s*:", re.IGNORECASE)
_INDEX_ID = re.compile(r"\bL-\d+\b")
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
# Russian journal keys and values map onto the English ones so one schema serves both.
_KEY_TWINS = {
    "где": "where", "что": "what", "поймал": "caught", "вспомнил": "recalled",
    "дефект": "defect", "сессия": "session", "коммит": "commit",
}  # fmt: skip
_VALUE_TWINS = {"да": "yes", "нет": "no", "неизвестно": "unknown"}
_KNOWN_HIT_KEYS = ("where", "what", "caught", "recalled", "defect", "session", "commit", "ts")


# ---------------------------------------------------------------- discovery


def discover_bases(start: str | Path) -> list[Path]:
    """Every ``LESSONS/`` folder from ``start`` upward, nearest first; [] if start is absent."""
    path = Path(start)
    if not path.exists():
        return []
    path = path.resolve()
    return list(_bases_at(str(path if path.is_dir() else path.parent)))


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


def lesson_paths(base: Path) -> list[Path]:
    """Lesson files of a base (``L-<digits>[-slug].md`` directly inside it), sorted."""
    return sorted(p for p in base.iterdir() if p.is_file() and LESSON_NAME.match(p.name))


# ---------------------------------------------------------------- text helpers


def split_lines(text: str) -> list[str]:
    """Lines without their ends; split on ``\\n`` only, so numbers match an editor's."""
    return [line.rstrip("\r\n") for line in _LINE.findall(text)]


def read_text(path: Path) -> tuple[str, int | None]:
    """File text and, when it is not valid UTF-8, the line of the first bad byte."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig"), None  # a leading BOM would hide the front matter
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
        return text, raw[: exc.start].count(b"\n") + 1


def _utc(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _to_date(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def _str_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(item).strip() for item in value if str(item).strip()]
    return [part.strip() for part in str(value).split(",") if part.strip()]


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value).strip() or None


def split_fields(rest: str) -> tuple[dict[str, str], list[str]]:
    """``key: value`` pairs (keys lowercased, Russian twins mapped) and the keyless parts."""
    keyed: dict[str, str] = {}
    free: list[str] = []
    for part in _SEPARATORS.split(rest.strip().lstrip("·|;:—–- ").strip()):
        match = _KEY_VALUE.match(part.strip())
        if not part.strip():
            continue
        if match is None or match.group(2).startswith("//"):  # a bare URL is text, not a key
            free.append(part.strip())
            continue
        key = match.group(1).lower()
        keyed.setdefault(_KEY_TWINS.get(key, key), match.group(2).strip())
    return keyed, free


# ---------------------------------------------------------------- lesson files


@dataclass
class LessonDoc:
    """One lesson file, parsed: front matter, body lines, rule and journal positions."""

    path: Path
    lesson_id: str
    text: str
    lines: list[str]
    meta: dict[str, Any]
    front_matter_ok: bool
    fm_end: int  # 1-based line of the closing ``---`` (0 when there is no front matter)
    errors: list[tuple[int, str]] = field(default_factory=list)

    def key_line(self, key: str) -> int:
        """Line of a front-matter key (1 when absent), for file:line findings."""
        pattern = re.compile(rf"^{re.escape(key)}\s*:")
        for number in range(2, self.fm_end):
            if pattern.match(self.lines[number - 1]):
                return number
        return 1

    def rule_span(self) -> tuple[int, int] | None:
        """1-based first and last line of the Rule:/Правило: paragraph."""
        return rule_span(self.lines, self.fm_end)

    def rule(self) -> str:
        span = self.rule_span()
        if span is None:
            return ""
        chunk = self.lines[span[0] - 1 : span[1]]
        chunk[0] = _RULE.sub("", chunk[0], count=1)
        return "\n".join(line.strip() for line in chunk).strip()

    def journal_span(self) -> tuple[int, int] | None:
        return journal_span(self.lines)


def read_lesson(path: Path) -> LessonDoc:
    """Parse one lesson file; broken YAML or bytes are recorded in ``errors``."""
    text, bad_line = read_text(path)
    lines = split_lines(text)
    match = LESSON_NAME.match(path.name)
    doc = LessonDoc(path, match.group(1) if match else path.stem, text, lines, {}, False, 0)
    if bad_line is not None:
        doc.errors.append((bad_line, "non-UTF-8 bytes (decoded with replacement)"))
    _parse_front_matter(doc)
    if doc.front_matter_ok and isinstance(doc.meta.get("id"), str):
        doc.lesson_id = doc.meta["id"].strip()
    return doc


def _parse_front_matter(doc: LessonDoc) -> None:
    if not doc.lines or doc.lines[0].strip() != "---":
        doc.errors.append((1, "no YAML front matter (file must start with ---)"))
        return
    closing = next((i for i, ln in enumerate(doc.lines[1:], 2) if ln.strip() == "---"), 0)
    if not closing:
        doc.errors.append((1, "front matter is not closed with ---"))
        return
    doc.fm_end = closing
    try:
        meta = frontmatter.loads(doc.text).metadata
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # python-frontmatter hands YAML the text after the opening fence, newline included,
        # so the mark's 0-based line plus one is the file's 1-based line.
        line = min(mark.line + 1, closing) if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        doc.errors.append((line, f"broken YAML front matter: {problem}"))
        return
    except (ValueError, TypeError, AttributeError) as exc:
        doc.errors.append((1, f"front matter is not a mapping: {exc}"))
        return
    has_yaml = any(
        ln.strip() and not ln.lstrip().startswith("#") for ln in doc.lines[1 : closing - 1]
    )
    if not meta and has_yaml:
        doc.errors.append((2, "front matter is not a mapping of keys"))
        return
    doc.meta, doc.front_matter_ok = dict(meta), True


def rule_span(lines: list[str], start: int = 0) -> tuple[int, int] | None:
    """The Rule paragraph runs to a blank line, another ``Key:`` line or a heading."""
    for index in range(start, len(lines)):
        if _RULE.match(lines[index]):
            end = index
            while end + 1 < len(lines):
                nxt = lines[end + 1]
                if not nxt.strip() or nxt.startswith("#") or _PARAGRAPH_KEY.match(nxt):
                    break
                end += 1
            return index + 1, end + 1
    return None


def journal_span(lines: list[str]) -> tuple[int, int] | None:
    """1-based heading line and last line of the hit journal section."""
    for index, line in enumerate(lines):
        if _JOURNAL_HEADING.match(line):
            end = next((j for j in range(index + 1, len(lines)) if _H2.match(lines[j])), None)
            return index + 1, end if end is not None else len(lines)
    return None


def _journal_stats(text: str) -> tuple[int, int, list[tuple[int, str]]]:
    """Bytes of the journal section, its non-blank entry lines, and those lines numbered."""
    chunks = _LINE.findall(text)
    span = journal_span([c.rstrip("\r\n") for c in chunks])
    if span is None:
        return 0, 0, []
    section = chunks[span[0] - 1 : span[1]]
    entries = [
        (span[0] + offset, chunk.rstrip("\r\n"))
        for offset, chunk in enumerate(section)
        if offset and chunk.strip() and not _is_comment(chunk)
    ]
    return sum(len(c.encode("utf-8")) for c in section), len(entries), entries


def journal_entries(text: str) -> list[tuple[int, str]]:
    """Numbered non-blank lines of the hit journal (single-line HTML comments skipped)."""
    return _journal_stats(text)[2]


def _is_comment(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("<!--") and stripped.endswith("-->")


# ---------------------------------------------------------------- hit journal


@dataclass(frozen=True)
class HitLine:
    """One parsed journal line; ``error`` says why it did not parse."""

    hit_date: date | None
    fields: dict[str, str]
    what: str | None
    ts: datetime | None
    error: str | None

    @property
    def is_hit(self) -> bool:
        # A line whose date is unreadable cannot be counted; form-only/none are not defects.
        defect = (self.fields.get("defect") or "").lower()
        return self.hit_date is not None and defect not in NOT_HIT_DEFECTS


def parse_hit_line(raw: str) -> HitLine:
    """``- DATE · key: value · ...``; free text after the date is the ``what``."""
    item = _ITEM.match(raw)
    head = _DATE_HEAD.match(item.group(1).strip()) if item else None
    if head is None:
        return HitLine(None, {}, None, None, "journal line is not '- YYYY-MM-DD ...'")
    hit_date = _to_date(head.group(1))
    keyed, free = split_fields(head.group(2))
    for key in ("recalled", "caught", "defect"):
        if key in keyed:
            keyed[key] = _VALUE_TWINS.get(keyed[key].lower(), keyed[key])
    what = " · ".join(([keyed.pop("what")] if "what" in keyed else []) + free) or None
    ts = _utc(keyed["ts"]) if "ts" in keyed else None
    error = None
    if hit_date is None:
        error = f"bad date {head.group(1)!r}"
    elif "ts" in keyed and ts is None:
        error = f"bad ts {keyed['ts']!r}"
    return HitLine(hit_date, keyed, what, ts, error)


def count_hits(text: str) -> int:
    """Real hits in a lesson text: journal lines that are hits."""
    return sum(parse_hit_line(raw).is_hit for _, raw in _journal_stats(text)[2])


# ---------------------------------------------------------------- INDEX.md


def section_name(heading: str) -> str:
    """'active' / 'candidates' (English or Russian, trailing words allowed), else the text."""
    lowered = heading.strip().lower()
    if re.match(r"(active|действующие)\b", lowered):
        return "active"
    if re.match(r"(candidates|кандидаты)\b", lowered):
        return "candidates"
    return lowered


@dataclass(frozen=True)
class IndexDoc:
    """INDEX.md parsed: ``##`` sections, lesson table rows and sleep markers (1-based lines)."""

    lines: list[str]
    sections: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    markers: list[int]

    def heading_line(self, section: str) -> int | None:
        return next((s["heading_line"] for s in self.sections if s["section"] == section), None)

    @property
    def first_heading_line(self) -> int | None:
        return self.sections[0]["heading_line"] if self.sections else None


def parse_index(text: str) -> IndexDoc:
    lines = split_lines(text)
    sections: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    markers = [n for n, line in enumerate(lines, 1) if _MARKER.match(line)]
    for number, line in enumerate(lines, 1):
        heading = _H2.match(line)
        if heading:
            if sections:
                sections[-1]["last_line"] = number - 1
            sections.append(
                {"section": section_name(heading.group(1)), "heading_line": number,
                 "first_line": number + 1, "last_line": len(lines)}
            )  # fmt: skip
        elif sections and line.lstrip().startswith("|"):
            row = _index_row(line)
            if row is not None:
                rows.append({"section": sections[-1]["section"], "line_no": number, **row})
    return IndexDoc(lines, sections, rows, markers)


def _index_row(line: str) -> dict[str, Any] | None:
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    found = _INDEX_ID.search(cells[0]) if cells else None
    if found is None:
        return None  # the header row and the |---| rule carry no id
    cells += [""] * 4
    return {
        "lesson_id": found.group(0),
        "addressee": _str_list(cells[1]),
        "triggers": _str_list(cells[2]),
        "target": cells[3] or None,
        "line_text": line,
    }


# ---------------------------------------------------------------- git history


@dataclass(frozen=True)
class _Version:
    commit: str
    committed_at: datetime
    relpath: str  # relative to the repository root
    blob: bytes


def _git(cwd: Path, *args: str, data: bytes | None = None) -> bytes | None:
    """Run git; None when git is missing or the command fails (e.g. not a repository)."""
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotePath=false", "-C", str(cwd), *args],
            input=data, capture_output=True, check=False,
        )  # fmt: skip
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def repo_root_of(path: Path) -> Path | None:
    out = _git(path, "rev-parse", "--show-toplevel")
    return Path(out.decode().strip()).resolve() if out else None


def _history(root: Path, base: Path) -> list[_Version]:
    """Every version of every file under the base: one git log, one cat-file batch."""
    rel = base.relative_to(root).as_posix()
    out = _git(root, "log", "--no-renames", "--name-status", "--format=@@%H %cI", "--", rel or ".")
    wanted: list[tuple[str, datetime, str]] = []
    commit, when = "", datetime.min.replace(tzinfo=UTC)
    for line in (out or b"").decode("utf-8", errors="replace").splitlines():
        if line.startswith("@@"):
            sha, _, stamp = line[2:].partition(" ")
            commit, when = sha, _utc(stamp) or when
        elif "\t" in line and not line.startswith("D"):
            wanted.append((commit, when, line.split("\t")[-1]))
    if not wanted:
        return []
    wanted.reverse()  # git log is newest first; rows go oldest first
    blobs = read_blobs(root, [(sha, path) for sha, _, path in wanted])
    return [
        _Version(sha, at, path, blob)
        for (sha, at, path), blob in zip(wanted, blobs, strict=False)
        if blob is not None
    ]


def read_blobs(root: Path, wanted: list[tuple[str, str]]) -> list[bytes | None]:
    """The blobs of (commit, path relative to ``root``) pairs, in order, through one
    ``git cat-file --batch``; None for a blob git does not have (or no git at all)."""
    if not wanted:
        return []
    request = "".join(f"{sha}:{path}\n" for sha, path in wanted).encode()
    blobs = _parse_batch(_git(root, "cat-file", "--batch", data=request) or b"")
    return blobs + [None] * (len(wanted) - len(blobs))


def _parse_batch(out: bytes) -> list[bytes | None]:
    """Blobs of ``git cat-file --batch`` output in request order (None for missing)."""
    blobs: list[bytes | None] = []
    pos = 0
    while pos < len(out):
        eol = out.index(b"\n", pos)
        header = out[pos:eol].split()
        if len(header) < 3 or header[-1] == b"missing":
            blobs.append(None)
            pos = eol + 1
            continue
        size = int(header[2])
        blobs.append(out[eol + 1 : eol + 1 + size])
        pos = eol + 1 + size + 1
    return blobs


# ---------------------------------------------------------------- snapshot


@dataclass
class BaseSnapshot:
    """Rows of one base for the warehouse; each list holds dicts with fixed keys.

    ``lessons.journal_lines`` counts the non-blank lines under the journal heading
    (single-line HTML comments skipped); ``hits`` has one row per such line, parsed or
    not. ``lesson_versions`` and ``index_versions`` are oldest first.
    """

    base: dict[str, Any]
    lessons: list[dict[str, Any]] = field(default_factory=list)
    hits: list[dict[str, Any]] = field(default_factory=list)
    lesson_versions: list[dict[str, Any]] = field(default_factory=list)
    index_versions: list[dict[str, Any]] = field(default_factory=list)
    index_rows: list[dict[str, Any]] = field(default_factory=list)
    index_sections: list[dict[str, Any]] = field(default_factory=list)
    quarantine: list[dict[str, Any]] = field(default_factory=list)
    retired: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)

    def error(self, file: Path | str, line: int | None, reason: str) -> None:
        self.errors.append({"file": str(file), "line": line, "reason": reason})


def load_base(path: str | Path) -> BaseSnapshot:
    """Read a base (folder or project dir) into warehouse rows. Never writes to it.

    INDEX.md versions come from git when the base is in git (the uncommitted worktree
    state is not a version); outside git, or when INDEX.md was never committed, the
    current file is the single version ``worktree``.
    """
    base = resolve_base(path)
    root = repo_root_of(base)
    head = _git(root, "rev-parse", "--verify", "-q", "HEAD") if root else None
    snap = BaseSnapshot(
        {"base_path": str(base), "project_dir": str(base.parent),
         "repo_root": str(root) if root else None, "is_git": root is not None,
         "head_commit": head.decode().strip() if head else None}
    )  # fmt: skip
    history = _history(root, base) if root else []
    _load_versions(snap, base, root, history)
    for lesson_path in lesson_paths(base):
        _load_lesson(snap, lesson_path)
    _load_index(snap, base, root, history)
    _load_quarantine(snap, base / "QUARANTINE.md")
    _load_retired(snap, base / "RETIRED.md")
    return snap


def _load_versions(
    snap: BaseSnapshot, base: Path, root: Path | None, history: list[_Version]
) -> None:
    for version in history:
        name = version.relpath.rsplit("/", 1)[-1]
        match = LESSON_NAME.match(name)
        if root is None or match is None or (root / version.relpath).parent != base:
            continue
        text = version.blob.decode("utf-8", errors="replace")
        journal_bytes, _, entries = _journal_stats(text)
        snap.lesson_versions.append(
            {"base_path": snap.base["base_path"], "lesson_id": match.group(1),
             "file_path": str(root / version.relpath), "commit": version.commit,
             "committed_at": version.committed_at, "body_bytes": len(version.blob),
             "journal_bytes": journal_bytes,
             "hits": sum(parse_hit_line(raw).is_hit for _, raw in entries)}
        )  # fmt: skip


def _load_lesson(snap: BaseSnapshot, path: Path) -> None:
    doc = read_lesson(path)
    for line, reason in doc.errors:
        snap.error(path, line, reason)
    # Versions are keyed by the id in the file name, so a renamed slug keeps its history.
    name_id = LESSON_NAME.match(path.name).group(1)  # type: ignore[union-attr]
    stamps = [v["committed_at"] for v in snap.lesson_versions if v["lesson_id"] == name_id]
    if snap.base["is_git"] and not any(v["file_path"] == str(path) for v in snap.lesson_versions):
        snap.error(path, None, "missing git history: the lesson file was never committed")
    journal_bytes, journal_lines, entries = _journal_stats(doc.text)
    meta = doc.meta
    evidence: dict[str, Any] = meta["evidence"] if isinstance(meta.get("evidence"), dict) else {}
    hits = evidence.get("hits")
    helped = evidence.get("helped")
    created = _to_date(meta.get("created")) or (min(stamps).date() if stamps else None)
    snap.lessons.append(
        {"base_path": snap.base["base_path"], "lesson_id": doc.lesson_id,
         "file_path": str(path), "status": _opt_str(meta.get("status")),
         "addressee": _str_list(meta.get("addressee")),
         "triggers": _str_list(meta.get("trigger", meta.get("triggers"))),
         "scope": _opt_str(meta.get("scope")), "target": _opt_str(meta.get("target")),
         "lesson_class": _opt_str(meta.get("class")), "created": created,
         "ritual": _opt_str(meta.get("ritual")),
         "evidence_hits": hits if isinstance(hits, int) and not isinstance(hits, bool) else None,
         "evidence_helped": helped if isinstance(helped, bool) else None,
         "rule": doc.rule(), "body_bytes": path.stat().st_size,
         "journal_bytes": journal_bytes, "journal_lines": journal_lines,
         "first_commit_at": min(stamps) if stamps else None,
         "last_commit_at": max(stamps) if stamps else None,
         "front_matter_ok": doc.front_matter_ok}
    )  # fmt: skip
    for line_no, raw in entries:
        _load_hit(snap, doc, line_no, raw)


def _load_hit(snap: BaseSnapshot, doc: LessonDoc, line_no: int, raw: str) -> None:
    hit = parse_hit_line(raw)
    if hit.error:
        snap.error(doc.path, line_no, f"unparseable journal line: {hit.error}")
    fields = hit.fields
    snap.hits.append(
        {"base_path": snap.base["base_path"], "lesson_id": doc.lesson_id,
         "file_path": str(doc.path), "line_no": line_no, "hit_date": hit.hit_date,
         "where_": fields.get("where"), "what": hit.what, "caught": fields.get("caught"),
         "recalled": fields.get("recalled"), "defect": fields.get("defect"),
         "session_id": fields.get("session"), "commit": fields.get("commit"), "ts": hit.ts,
         "extra": {k: v for k, v in fields.items() if k not in _KNOWN_HIT_KEYS},
         "is_hit": hit.is_hit, "parse_ok": hit.error is None, "raw": raw}
    )  # fmt: skip


def _load_index(snap: BaseSnapshot, base: Path, root: Path | None, history: list[_Version]) -> None:
    index = base / "INDEX.md"
    versions: list[tuple[str, datetime | None, str]] = [
        (v.commit, v.committed_at, v.blob.decode("utf-8", errors="replace"))
        for v in history
        if root is not None and root / v.relpath == index
    ]
    if not versions and index.is_file():
        text, bad_line = read_text(index)
        if bad_line is not None:
            snap.error(index, bad_line, "non-UTF-8 bytes (decoded with replacement)")
        versions = [("worktree", None, text)]
    for version_id, committed_at, text in versions:
        doc = parse_index(text)
        common = {"base_path": snap.base["base_path"], "version_id": version_id}
        snap.index_versions.append(
            {**common, "committed_at": committed_at, "text": text,
             "bytes": len(text.encode("utf-8")), "n_lines": len(doc.lines),
             "active_heading_line": doc.heading_line("active"),
             "candidates_heading_line": doc.heading_line("candidates"),
             "first_heading_line": doc.first_heading_line, "marker_count": len(doc.markers)}
        )  # fmt: skip
        snap.index_rows.extend({**common, **row} for row in doc.rows)
        snap.index_sections.extend({**common, **section} for section in doc.sections)


def _list_items(snap: BaseSnapshot, path: Path) -> list[tuple[int, str, str]]:
    """Numbered ``- item`` lines of QUARANTINE.md / RETIRED.md with the item text."""
    if not path.is_file():
        return []
    text, bad_line = read_text(path)
    if bad_line is not None:
        snap.error(path, bad_line, "non-UTF-8 bytes (decoded with replacement)")
    numbered = enumerate(split_lines(text), 1)
    return [(n, line, m.group(1)) for n, line in numbered if (m := _ITEM.match(line))]


def _load_quarantine(snap: BaseSnapshot, path: Path) -> None:
    for line_no, raw, item in _list_items(snap, path):
        head = _DATE_HEAD.match(item.strip())
        keyed, free = split_fields(head.group(2) if head else item)
        if head is None:
            snap.error(path, line_no, "quarantine line is not '- YYYY-MM-DD ...'")
        seen = keyed.get("seen", "")
        snap.quarantine.append(
            {"base_path": snap.base["base_path"], "line_no": line_no,
             "obs_date": _to_date(head.group(1)) if head else None,
             "signal": keyed.get("signal") or " · ".join(free) or None,
             "session_id": keyed.get("session"), "mechanism": keyed.get("mechanism"),
             "seen": int(seen) if seen.isdigit() else None, "raw": raw}
        )  # fmt: skip


def _load_retired(snap: BaseSnapshot, path: Path) -> None:
    for line_no, raw, item in _list_items(snap, path):
        keyed, free = split_fields(item)
        lesson_id = next((m.group(0) for p in free if (m := _INDEX_ID.fullmatch(p))), None)
        day = next((d for p in free if (d := _to_date(p)) is not None), None)
        if lesson_id is None:
            snap.error(path, line_no, "retired line names no lesson id (L-<digits>)")
        snap.retired.append(
            {"base_path": snap.base["base_path"], "line_no": line_no, "lesson_id": lesson_id,
             "retired_date": day, "reason": keyed.get("reason"), "where_": keyed.get("where"),
             "raw": raw}
        )  # fmt: skip
