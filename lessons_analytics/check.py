"""``check``: the INDEX.md layout rules of lesson-base.md, from the base's files alone.

Rule names are stable (the judge and the tests match on them):
``index-missing``, ``active-heading-line``, ``no-quarantine``, ``index-size``,
``active-without-row``, ``row-without-file``, ``marker-count``, ``marker-position``.

Choice: sleep-marker lines above ``## Active`` are not counted against its line limit, so
``stats --mark`` can never push a passing index over it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lessons_analytics.documents import FailureRow
from lessons_analytics.lessonbase.files import (
    LESSON_NAME,
    IndexDoc,
    parse_index,
    read_lesson,
    read_text,
)
from lessons_analytics.lessonbase.locate import resolve_base
from lessons_analytics.lessonbase.reader import lesson_paths
from lessons_analytics.settings import Thresholds

RULES = (
    "index-missing",
    "active-heading-line",
    "no-quarantine",
    "index-size",
    "active-without-row",
    "row-without-file",
    "marker-count",
    "marker-position",
)
# Quarantine content is either a quarantine section or an observation line (signal/seen keys).
_QUARANTINE_HEADING = re.compile(r"^#+\s*(quarantine|карантин)", re.IGNORECASE)
_OBSERVATION = re.compile(r"^\s*[-*|]\s*\d{4}-\d{2}-\d{2}.*\b(signal|seen)\s*:", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class Failure:
    """One broken layout rule, printed as ``file:line: rule: message``."""

    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.rule}: {self.message}"

    def to_dict(self) -> FailureRow:
        return {"file": self.file, "line": self.line, "rule": self.rule, "message": self.message}


@dataclass(frozen=True)
class LessonFile:
    """What the rules need of a lesson file: its id (front matter, else file name), its
    file name and its front-matter status."""

    lesson_id: str
    file_name: str
    status: str | None


def check_base(base_path: str | Path, thresholds: Thresholds) -> list[Failure]:
    """Every layout failure of the base's current INDEX.md, sorted by file and line.

    ``base_path`` is the LESSONS folder or the project holding it (else ``BaseNotFound``).
    The limits are ``thresholds.active_heading_max_line`` and ``index_max_bytes``, the same
    keys the ``index-layout`` sign of ``stats`` reads through this function.
    """
    base = resolve_base(base_path)
    index_path = base / "INDEX.md"
    text = read_text(index_path)[0] if index_path.is_file() else None
    docs = [read_lesson(path) for path in lesson_paths(base)]
    files = [
        LessonFile(doc.lesson_id, doc.path.name, str(doc.meta.get("status", "")).strip())
        for doc in docs
    ]
    return check_index(str(index_path), text, files, thresholds)


def check_index(
    index_path: str,
    text: str | None,
    lessons: list[LessonFile],
    thresholds: Thresholds,
) -> list[Failure]:
    """The rules on an INDEX.md text (None: there is none) and the base's lesson files:
    what ``check_base`` reads from disk, or ``stats`` from the warehouse."""
    if text is None:
        return [Failure(index_path, 0, "index-missing", "the base has no INDEX.md")]
    index = parse_index(text)
    failures = [
        *_active_heading(index_path, index, thresholds.active_heading_max_line),
        *_no_quarantine(index_path, index),
        *_index_size(index_path, text, thresholds.index_max_bytes),
        *_rows_and_files(lessons, index_path, index),
        *_markers(index_path, index),
    ]
    return sorted(failures)


def _active_heading(name: str, index: IndexDoc, max_line: int) -> list[Failure]:
    line = index.heading_line("active")
    if line is None:
        return [Failure(name, 1, "active-heading-line", "no '## Active' (## Действующие) heading")]
    # the sleep marker is the package's own line: writing it must not break the layout
    counted = line - sum(1 for marker in index.markers if marker < line)
    if counted > max_line:
        message = f"'## Active' heading at line {line}, must be at line {max_line} or above"
        if counted != line:
            message += " (not counting the sleep marker)"
        return [Failure(name, line, "active-heading-line", message)]
    return []


def _no_quarantine(name: str, index: IndexDoc) -> list[Failure]:
    failures = []
    for number, line in enumerate(index.lines, 1):
        if _QUARANTINE_HEADING.match(line) or _OBSERVATION.match(line):
            message = "quarantine content in the index: it belongs in QUARANTINE.md"
            failures.append(Failure(name, number, "no-quarantine", message))
    return failures


def _index_size(name: str, text: str, max_bytes: int) -> list[Failure]:
    size = len(text.encode("utf-8"))
    if size <= max_bytes:
        return []
    return [Failure(name, 1, "index-size", f"INDEX.md is {size} bytes, limit {max_bytes}")]


def _rows_and_files(lessons: list[LessonFile], name: str, index: IndexDoc) -> list[Failure]:
    # A lesson with broken front matter is known by the id in its file name.
    known = {f.lesson_id for f in lessons} | {_name_id(f.file_name) for f in lessons}
    active_rows = {row["lesson_id"] for row in index.rows if row["section"] == "active"}
    heading = index.heading_line("active") or 1
    failures = []
    for f in lessons:
        if f.status == "active" and f.lesson_id not in active_rows:
            message = f"active lesson {f.lesson_id} ({f.file_name}) has no row under ## Active"
            failures.append(Failure(name, heading, "active-without-row", message))
    for row in index.rows:
        if row["lesson_id"] not in known:
            message = f"row {row['lesson_id']} ({row['section']}) has no lesson file in the base"
            failures.append(Failure(name, row["line_no"], "row-without-file", message))
    return failures


def _name_id(file_name: str) -> str:
    match = LESSON_NAME.match(file_name)
    return match.group(1) if match else Path(file_name).stem


def _markers(name: str, index: IndexDoc) -> list[Failure]:
    failures = []
    for extra in index.markers[1:]:
        message = f"{len(index.markers)} sleep markers, at most one is allowed"
        failures.append(Failure(name, extra, "marker-count", message))
    first_heading = index.first_heading_line
    for line in index.markers:
        if first_heading is not None and line > first_heading:
            message = f"sleep marker below the first '##' heading (line {first_heading})"
            failures.append(Failure(name, line, "marker-position", message))
    return failures
