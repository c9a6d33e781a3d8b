"""Read a lesson base (``LESSONS/``): files, hit journals, INDEX.md layout and git history.

The package never writes here (the sleep marker is written elsewhere). Every parse is
forgiving: a broken front matter or journal line becomes an ``errors`` row, never a crash.
Git history is read with one ``git log`` and one ``git cat-file --batch`` per base, so a
base with hundreds of commits loads in a few subprocess calls. The parsing of the files
themselves (lesson, journal line, INDEX.md) lives in ``lessonbase.files``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lessons_analytics.gitrun import git_or_none
from lessons_analytics.lessonbase.files import (
    DATE_HEAD,
    INDEX_ID,
    KNOWN_HIT_KEYS,
    LESSON_NAME,
    LIST_ITEM,
    LessonDoc,
    journal_stats,
    opt_str,
    parse_hit_line,
    parse_index,
    parse_lesson,
    read_lesson,
    read_text,
    split_fields,
    split_lines,
    str_list,
    to_date,
    utc,
)
from lessons_analytics.lessonbase.locate import resolve_base

# ---------------------------------------------------------------- lesson files


def lesson_paths(base: Path) -> list[Path]:
    """Lesson files of a base (``L-<digits>[-slug].md`` directly inside it), sorted."""
    return sorted(p for p in base.iterdir() if p.is_file() and LESSON_NAME.match(p.name))


# ---------------------------------------------------------------- git history


@dataclass(frozen=True)
class _Version:
    commit: str
    committed_at: datetime
    relpath: str  # relative to the repository root
    blob: bytes


def _git(cwd: Path, *args: str, data: bytes | None = None) -> bytes | None:
    """Run git; None when git is missing, the command fails (e.g. not a repository) or
    runs out of time (``gitrun``)."""
    return git_or_none(cwd, *args, data=data)


def repo_root_of(path: Path) -> Path | None:
    out = _git(path, "rev-parse", "--show-toplevel")
    return Path(out.decode().strip()).resolve() if out else None


def _log(root: Path, *pathspecs: str) -> list[tuple[str, datetime, str, str]]:
    """(commit, committed_at, status letter, path) of every file change, newest first."""
    out = _git(root, "log", "--no-renames", "--name-status", "--format=@@%H %cI", "--",
               *pathspecs)  # fmt: skip
    changes: list[tuple[str, datetime, str, str]] = []
    commit, when = "", datetime.min.replace(tzinfo=UTC)
    for line in (out or b"").decode("utf-8", errors="replace").splitlines():
        if line.startswith("@@"):
            sha, _, stamp = line[2:].partition(" ")
            commit, when = sha, utc(stamp) or when
        elif "\t" in line:
            changes.append((commit, when, line[:1], line.split("\t")[-1]))
    return changes


# A hook or scout prompt file: any path of the repository with "hook" or "scout" in one of
# its parts (.claude/hooks/..., agents/lesson-scout.md, hooks.json), and Claude Code's
# settings files, where hooks are declared. Files inside the base itself are not prompts.
PROMPT_PATH = re.compile(
    r"(?:^|/)[^/]*(?:hook|scout)[^/]*(?:/|$)|^\.claude/settings(?:\.local)?\.json$",
    re.IGNORECASE,
)
_PROMPT_PATHSPECS = (":(glob,icase)**/*hook*", ":(glob,icase)**/*hook*/**",
                     ":(glob,icase)**/*scout*", ":(glob,icase)**/*scout*/**",
                     ".claude/settings.json", ".claude/settings.local.json")  # fmt: skip


def _repo_changes(snap: BaseSnapshot, root: Path, base: Path) -> None:
    """Commits that changed a prompt file of the repository (one row per file changed)."""
    rel = base.relative_to(root).as_posix()
    for sha, when, letter, path in reversed(_log(root, *_PROMPT_PATHSPECS)):
        inside = rel not in ("", ".") and (path == rel or path.startswith(rel + "/"))
        if PROMPT_PATH.search(path) and not inside:
            snap.repo_changes.append(
                {"base_path": snap.base["base_path"], "commit": sha, "committed_at": when,
                 "path": str(root / path), "change": letter, "kind": "prompt"}
            )  # fmt: skip


def _history(root: Path, base: Path, snap: BaseSnapshot | None = None) -> list[_Version]:
    """Every version of every file under the base: one git log, one cat-file batch.
    Deleted lesson files are recorded in ``snap.repo_changes`` (kind ``lesson_deleted``)."""
    rel = base.relative_to(root).as_posix()
    wanted: list[tuple[str, datetime, str]] = []
    deleted: list[dict[str, Any]] = []
    for commit, when, letter, path in _log(root, rel or "."):
        if letter != "D":
            wanted.append((commit, when, path))
        elif LESSON_NAME.match(path.rsplit("/", 1)[-1]) and (root / path).parent == base:
            deleted.append({"commit": commit, "committed_at": when, "path": str(root / path),
                            "change": letter, "kind": "lesson_deleted"})  # fmt: skip
    if snap is not None:  # oldest first, as every other list of the snapshot
        snap.repo_changes.extend({"base_path": snap.base["base_path"], **row}
                                 for row in reversed(deleted))  # fmt: skip
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
    index_current: list[dict[str, Any]] = field(default_factory=list)
    quarantine: list[dict[str, Any]] = field(default_factory=list)
    retired: list[dict[str, Any]] = field(default_factory=list)
    repo_changes: list[dict[str, Any]] = field(default_factory=list)
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
    history = _history(root, base, snap) if root else []
    if root:
        _repo_changes(snap, root, base)
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
        journal_bytes, _, entries = journal_stats(text)
        meta = parse_lesson(root / version.relpath, text).meta
        snap.lesson_versions.append(
            {"base_path": snap.base["base_path"], "lesson_id": match.group(1),
             "file_path": str(root / version.relpath), "commit": version.commit,
             "committed_at": version.committed_at, "body_bytes": len(version.blob),
             "journal_bytes": journal_bytes,
             "hits": sum(parse_hit_line(raw).is_hit for _, raw in entries),
             "version_seq": sum(v["lesson_id"] == match.group(1) for v in snap.lesson_versions),
             "status": opt_str(meta.get("status")),
             "lesson_class": opt_str(meta.get("class"))}
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
    journal_bytes, journal_lines, entries = journal_stats(doc.text)
    meta = doc.meta
    evidence: dict[str, Any] = meta["evidence"] if isinstance(meta.get("evidence"), dict) else {}
    hits = evidence.get("hits")
    helped = evidence.get("helped")
    created = to_date(meta.get("created")) or (min(stamps).date() if stamps else None)
    snap.lessons.append(
        {"base_path": snap.base["base_path"], "lesson_id": doc.lesson_id,
         "file_path": str(path), "status": opt_str(meta.get("status")),
         "addressee": str_list(meta.get("addressee")),
         "triggers": str_list(meta.get("trigger", meta.get("triggers"))),
         "scope": opt_str(meta.get("scope")), "target": opt_str(meta.get("target")),
         "lesson_class": opt_str(meta.get("class")), "created": created,
         "ritual": opt_str(meta.get("ritual")),
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
         "extra": {k: v for k, v in fields.items() if k not in KNOWN_HIT_KEYS},
         "is_hit": hit.is_hit, "parse_ok": hit.error is None, "raw": raw}
    )  # fmt: skip


def _load_index(snap: BaseSnapshot, base: Path, root: Path | None, history: list[_Version]) -> None:
    index = base / "INDEX.md"
    versions: list[tuple[str, datetime | None, str]] = [
        (v.commit, v.committed_at, v.blob.decode("utf-8", errors="replace"))
        for v in history
        if root is not None and root / v.relpath == index
    ]
    if index.is_file():
        text, bad_line = read_text(index)
        snap.index_current.append({"file_path": str(index), "text": text})
        if not versions:
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
    return [(n, line, m.group(1)) for n, line in numbered if (m := LIST_ITEM.match(line))]


def _load_quarantine(snap: BaseSnapshot, path: Path) -> None:
    for line_no, raw, item in _list_items(snap, path):
        head = DATE_HEAD.match(item.strip())
        keyed, free = split_fields(head.group(2) if head else item)
        if head is None:
            snap.error(path, line_no, "quarantine line is not '- YYYY-MM-DD ...'")
        seen = keyed.get("seen", "")
        snap.quarantine.append(
            {"base_path": snap.base["base_path"], "line_no": line_no,
             "obs_date": to_date(head.group(1)) if head else None,
             "signal": keyed.get("signal") or " · ".join(free) or None,
             "session_id": keyed.get("session"), "mechanism": keyed.get("mechanism"),
             "seen": int(seen) if seen.isdigit() else None, "raw": raw}
        )  # fmt: skip


def _load_retired(snap: BaseSnapshot, path: Path) -> None:
    for line_no, raw, item in _list_items(snap, path):
        keyed, free = split_fields(item)
        lesson_id = next((m.group(0) for p in free if (m := INDEX_ID.fullmatch(p))), None)
        day = next((d for p in free if (d := to_date(p)) is not None), None)
        if lesson_id is None:
            snap.error(path, line_no, "retired line names no lesson id (L-<digits>)")
        snap.retired.append(
            {"base_path": snap.base["base_path"], "line_no": line_no, "lesson_id": lesson_id,
             "retired_date": day, "reason": keyed.get("reason"), "where_": keyed.get("where"),
             "raw": raw}
        )  # fmt: skip
