"""The text of a lesson base, parsed: lesson files (front matter, rule, hit journal in
English and Russian), hit journal lines, and INDEX.md (sections, rows, sleep markers).

Every parse is forgiving: a broken front matter or journal line is reported, never raised.
``bases`` reads the files and their git history with these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from lessons_analytics.lessonbase.shapes import LESSON_FILE, LESSON_ID_IN_TEXT, is_sleep_marker

LESSON_NAME = LESSON_FILE  # the names bases, check and lint import
STATUSES = ("candidate", "active", "deferred", "retired")
NOT_HIT_DEFECTS = ("form-only", "none")
_JOURNAL_HEADING = re.compile(r"^##\s+(hits|журнал повторов)\b", re.IGNORECASE)
_H2 = re.compile(r"^##(?!#)\s*(.*?)\s*#*\s*$")
_RULE = re.compile(r"^\s*(?:\*\*)?(rule|правило)\s*:\s*(?:\*\*)?\s*", re.IGNORECASE)
# A new paragraph key (Why:, Почему:, How to apply:) starts at column 0 with a capital.
_PARAGRAPH_KEY = re.compile(r"^(?:\*\*)?[A-ZА-ЯЁ][\w-]*(?: [\w-]+){0,2}\s*:(?:\*\*)?(?:\s|$)")
LIST_ITEM = re.compile(r"^\s*[-*]\s+(.*)$")
DATE_HEAD = re.compile(r"^(\d{4}-\d{2}-\d{2})(?![\dT:])\s*(.*)$")
_SEPARATORS = re.compile(r"\s+[·|]\s+|;\s+")
_KEY_VALUE = re.compile(r"^([^\W\d][\w-]*)\s*:\s*(.*)$", re.UNICODE)
INDEX_ID = LESSON_ID_IN_TEXT
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
# Russian journal keys and values map onto the English ones so one schema serves both.
_KEY_TWINS = {
    "где": "where", "что": "what", "поймал": "caught", "вспомнил": "recalled",
    "дефект": "defect", "сессия": "session", "коммит": "commit",
}  # fmt: skip
_VALUE_TWINS = {"да": "yes", "нет": "no", "неизвестно": "unknown"}
KNOWN_HIT_KEYS = ("where", "what", "caught", "recalled", "defect", "session", "commit", "ts")

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


def utc(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def to_date(value: object) -> date | None:
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


def str_list(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(item).strip() for item in value if str(item).strip()]
    return [part.strip() for part in str(value).split(",") if part.strip()]


def opt_str(value: object) -> str | None:
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
    return parse_lesson(path, text, bad_line)


def parse_lesson(path: Path, text: str, bad_line: int | None = None) -> LessonDoc:
    """Parse a lesson's text (the file now, or one of its versions from git)."""
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
    # imported here, not at the top: every analysis command imports this module for its
    # constants, and only the commands that read lesson files need a YAML parser
    import frontmatter
    import yaml

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


def journal_stats(text: str) -> tuple[int, int, list[tuple[int, str]]]:
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
    return journal_stats(text)[2]


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
    item = LIST_ITEM.match(raw)
    head = DATE_HEAD.match(item.group(1).strip()) if item else None
    if head is None:
        return HitLine(None, {}, None, None, "journal line is not '- YYYY-MM-DD ...'")
    hit_date = to_date(head.group(1))
    keyed, free = split_fields(head.group(2))
    for key in ("recalled", "caught", "defect"):
        if key in keyed:
            keyed[key] = _VALUE_TWINS.get(keyed[key].lower(), keyed[key])
    what = " · ".join(([keyed.pop("what")] if "what" in keyed else []) + free) or None
    ts = utc(keyed["ts"]) if "ts" in keyed else None
    error = None
    if hit_date is None:
        error = f"bad date {head.group(1)!r}"
    elif "ts" in keyed and ts is None:
        error = f"bad ts {keyed['ts']!r}"
    return HitLine(hit_date, keyed, what, ts, error)


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
    markers = [n for n, line in enumerate(lines, 1) if is_sleep_marker(line)]
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
    found = INDEX_ID.search(cells[0]) if cells else None
    if found is None:
        return None  # the header row and the |---| rule carry no id
    cells += [""] * 4
    return {
        "lesson_id": found.group(0),
        "addressee": str_list(cells[1]),
        "triggers": str_list(cells[2]),
        "target": cells[3] or None,
        "line_text": line,
    }
