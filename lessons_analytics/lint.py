"""``lint``: the form of each lesson file, the mechanism gate, and poisoning.

Stable rule names (severity in brackets): ``front-matter``, ``encoding``, ``required-field``,
``target-missing``, ``scope-missing``, ``id-format``, ``id-file-name``, ``id-duplicate``,
``status-value``, ``evidence-value``, ``hits-mismatch``, ``journal-parse``, ``rule-missing``,
``mechanism``, ``ritual-regex``, ``poisoning`` [error]; ``journal-value``, ``created-value``
[warning]; ``rule-missing`` is a warning for lessons that are not active.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from lessons_analytics import poison
from lessons_analytics.documents import FindingRow
from lessons_analytics.lessonbase.files import (
    LESSON_NAME,
    STATUSES,
    LessonDoc,
    journal_entries,
    parse_hit_line,
    read_lesson,
    read_text,
)
from lessons_analytics.lessonbase.locate import resolve_base
from lessons_analytics.lessonbase.reader import lesson_paths, repo_root_of
from lessons_analytics.lessonbase.shapes import LESSON_ID
from lessons_analytics.settings import Lint

_HIT_VALUES = {
    "caught": {"gate", "human", "judge", "ci", "self", "reviewer", "unknown"},
    "recalled": {"yes", "no", "unknown"},
    "defect": {"bug", "wrong-number", "cannot-fail-check", "data-loss", "form-only", "none"},
}
_COMMIT = re.compile(r"^[0-9a-fA-F]{7,40}$")


@dataclass(frozen=True, order=True)
class Finding:
    """One lint finding, printed as ``file:line: severity: rule: message``."""

    file: str
    line: int
    severity: str  # 'error' | 'warning'
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.severity}: {self.rule}: {self.message}"

    def to_dict(self) -> FindingRow:
        return {"file": self.file, "line": self.line, "severity": self.severity,
                "rule": self.rule, "message": self.message}  # fmt: skip


def lint_base(base_path: str | Path, settings: Lint) -> list[Finding]:
    """Every finding for the lesson files (and poisoning in the base's other files);
    ``settings`` is the ``[lint]`` section."""
    base = resolve_base(base_path)
    roots = _roots(base)
    docs = [read_lesson(path) for path in lesson_paths(base)]
    findings = [*_duplicates(docs)]
    for doc in docs:
        findings += _lint_lesson(doc, roots)
        findings += poisoning(str(doc.path), doc.text, settings.base64_min_len)
    for name in ("INDEX.md", "QUARANTINE.md", "RETIRED.md"):
        if (base / name).is_file():
            text, _ = read_text(base / name)
            findings += poisoning(str(base / name), text, settings.base64_min_len)
    return sorted(findings)


def _roots(base: Path) -> list[Path]:
    """Where artifact paths named by a rule may live: repo root, project dir, the base."""
    root = repo_root_of(base)
    return list(dict.fromkeys([*([root] if root else []), base.parent, base]))


def _lint_lesson(doc: LessonDoc, roots: list[Path]) -> list[Finding]:
    name = str(doc.path)
    findings = [
        Finding(name, line, "error", "encoding" if "UTF-8" in why else "front-matter", why)
        for line, why in doc.errors
    ]
    if doc.front_matter_ok:
        findings += _fields(doc) + _evidence(doc) + _rule_and_mechanism(doc, roots)
    return findings + _journal(doc)


def _duplicates(docs: list[LessonDoc]) -> list[Finding]:
    counts = Counter(doc.lesson_id for doc in docs)
    return [
        Finding(str(doc.path), doc.key_line("id"), "error", "id-duplicate",
                f"id {doc.lesson_id} is used by {counts[doc.lesson_id]} files")
        for doc in docs
        if counts[doc.lesson_id] > 1
    ]  # fmt: skip


def _fields(doc: LessonDoc) -> list[Finding]:
    meta, name = doc.meta, str(doc.path)
    out: list[Finding] = []

    def add(key: str, rule: str, message: str, severity: str = "error") -> None:
        out.append(Finding(name, doc.key_line(key), severity, rule, message))

    for key in ("id", "addressee", "trigger", "status"):
        if _blank(meta.get(key)):
            add(key, "required-field", f"required field '{key}' is missing or empty")
    if _blank(meta.get("target")):
        add("target", "target-missing", "no target: the reproducible failure is required")
    lesson_id, status = str(meta.get("id", "")).strip(), str(meta.get("status", "")).strip()
    file_id = LESSON_NAME.match(doc.path.name)
    if lesson_id and not LESSON_ID.match(lesson_id):
        add("id", "id-format", f"id {lesson_id!r} is not 'L-' and digits")
    elif lesson_id and (file_id is None or file_id.group(1) != lesson_id):
        add("id", "id-file-name", f"file name {doc.path.name} does not start with id {lesson_id}")
    if status and status not in STATUSES:
        add("status", "status-value", f"status {status!r} is not one of {', '.join(STATUSES)}")
    if status == "active" and _blank(meta.get("scope")):
        add("scope", "scope-missing", "an active lesson needs a scope")
    created = meta.get("created")
    if created is not None and not isinstance(created, date):
        add("created", "created-value", f"created {created!r} is not a date", "warning")
    ritual = meta.get("ritual")
    if ritual is not None and (problem := _regex_problem(str(ritual))):
        add("ritual", "ritual-regex", f"ritual is not a valid regex: {problem}")
    return out


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str | list | dict) and not value)


def _regex_problem(pattern: str) -> str | None:
    try:
        re.compile(pattern)
    except re.error as exc:
        return str(exc)
    return None


def _evidence(doc: LessonDoc) -> list[Finding]:
    evidence = doc.meta.get("evidence")
    if evidence is None:
        return []
    name, line = str(doc.path), doc.key_line("evidence")
    if not isinstance(evidence, dict):
        return [Finding(name, line, "error", "evidence-value", "evidence must be a mapping")]
    out = []
    hits, helped = evidence.get("hits"), evidence.get("helped")
    if hits is not None and (isinstance(hits, bool) or not isinstance(hits, int) or hits < 0):
        out.append(Finding(name, line, "error", "evidence-value", f"evidence.hits {hits!r}"))
    elif isinstance(hits, int):
        real = _real_hits(doc)
        if real != hits:
            message = f"evidence.hits is {hits} but the journal holds {real} hits"
            out.append(Finding(name, line, "error", "hits-mismatch", message))
    if helped is not None and not isinstance(helped, bool):
        message = f"evidence.helped {helped!r} is not true, false or null"
        out.append(Finding(name, line, "error", "evidence-value", message))
    return out


def _real_hits(doc: LessonDoc) -> int:
    return sum(parse_hit_line(raw).is_hit for _, raw in journal_entries(doc.text))


def _journal(doc: LessonDoc) -> list[Finding]:
    out = []
    for number, raw in journal_entries(doc.text):
        hit = parse_hit_line(raw)
        if hit.error:
            out.append(Finding(str(doc.path), number, "error", "journal-parse", hit.error))
            continue
        out += [
            Finding(str(doc.path), number, "warning", "journal-value", message)
            for message in _value_problems(hit.fields)
        ]
    return out


def _value_problems(fields: dict[str, str]) -> list[str]:
    problems = [
        f"{key}: {fields[key]!r} is not one of {', '.join(sorted(allowed))}"
        for key, allowed in _HIT_VALUES.items()
        if key in fields and fields[key].lower() not in allowed
    ]
    if "commit" in fields and not _COMMIT.match(fields["commit"]):
        problems.append(f"commit: {fields['commit']!r} is not a git sha (7+ hex)")
    return problems


def _rule_and_mechanism(doc: LessonDoc, roots: list[Path]) -> list[Finding]:
    status = str(doc.meta.get("status", "")).strip()
    span = doc.rule_span()
    if span is None:
        severity = "error" if status == "active" else "warning"
        message = "no 'Rule:' (Правило:) paragraph"
        return [Finding(str(doc.path), doc.fm_end + 1, severity, "rule-missing", message)]
    if status != "active":
        return []
    problem = mechanism_problem(doc.rule(), roots)
    if problem is None:
        return []
    return [Finding(str(doc.path), span[0], "error", "mechanism", problem)]


def poisoning(file: str, text: str, base64_min_len: int = 80) -> list[Finding]:
    """Text that steers the reader instead of stating a rule (``poison.py``): one finding
    per line and kind."""
    return [
        Finding(file, line, "error", "poisoning", message)
        for line, _, message in poison.findings(text, base64_min_len)
    ]


# ---------------------------------------------------------------- the mechanism gate

_STEP = re.compile(
    r"\binstead of\s+\S[^.!?]*?(?:[,;:—–]\s*\S|\s(?:do|run|use|call|write|open|ask)\s)"
    r"|\bвместо\s+\S[^.!?]*?(?:[,;:—–]\s*\S|\s(?:делай|сделай|запускай|запусти|используй|пиши)\s)",
    re.IGNORECASE,
)
_EXHORTATION = re.compile(
    r"\b(be (?:more )?careful|pay (?:more )?attention|remember to|don't forget|do not forget"
    r"|keep in mind|be mindful|be vigilant|будь(?:те)? внимательн\w*|не забывай\w*|не забудь\w*"
    r"|обращай(?:те)? внимание|помни(?:те)?)",
    re.IGNORECASE,
)
_BACKTICK = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(
    r"(?<![\w/.-])((?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)+/?"
    r"|[\w-]+\.(?:py|sh|md|toml|ya?ml|json|sql|txt|cfg|ini|mk))(?::\d+)?"
)
_RUNNERS = ("uv", "poetry", "hatch", "pipx", "pdm")


def mechanism_problem(rule: str, roots: list[Path]) -> str | None:
    """None when the rule states a step or names an existing artifact; else why not."""
    if _STEP.search(rule):
        return None
    artifacts = _Artifacts(roots)
    spans = _BACKTICK.findall(rule)
    paths = [m.group(1) for m in _PATH.finditer(_BACKTICK.sub(" ", rule))]
    if any(artifacts.command(span) for span in spans) or any(map(artifacts.path, paths)):
        return None
    named = ", ".join(f"'{x}'" for x in [*spans, *paths])
    missing = f" (named but not found: {named})" if named else ""
    exhortation = _EXHORTATION.search(rule)
    kind = f"is an exhortation ('{exhortation.group(1)}') with" if exhortation else "states"
    return (
        f"rule {kind} no mechanism{missing}: state 'instead of X, do Y' (вместо X, делай Y) "
        "or point at an existing artifact (repo path, script, Makefile target, entry point, "
        "command on PATH); set status: deferred until the artifact is built"
    )


class _Artifacts:
    """Paths and commands the repository defines, looked up under each root."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = roots
        self.targets: set[str] = set()
        self.scripts: set[str] = set()
        for root in roots:
            self.targets |= _make_targets(root / "Makefile") | _make_targets(root / "Justfile")
            self.scripts |= _entry_points(root) | _package_scripts(root)
            folder = root / "scripts"
            if folder.is_dir():
                self.scripts |= {p.name for p in folder.iterdir()} | {
                    p.stem for p in folder.iterdir()
                }

    def path(self, token: str) -> bool:
        token = token.strip().rstrip("/.,;:")
        return bool(token) and any((root / token).exists() for root in self.roots)

    def command(self, span: str) -> bool:
        words = span.split()
        if not words:
            return False
        if words[0] in _RUNNERS and len(words) > 2 and words[1] == "run":
            words = words[2:]
        head, rest = words[0], [w for w in words[1:] if not w.startswith("-")]
        if head in ("make", "just"):
            return bool(rest) and rest[0] in self.targets
        if head in ("npm", "pnpm", "yarn") and rest:
            return (rest[1] if rest[0] == "run" and len(rest) > 1 else rest[0]) in self.scripts
        if "/" in head or self.path(span):
            return self.path(head) or self.path(span)
        return head in self.scripts or shutil.which(head) is not None


def _make_targets(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    text, _ = read_text(path)
    return set(re.findall(r"^([A-Za-z0-9_.-]+)(?:[ \t][^:=\n]*)?:(?!=)", text, re.MULTILINE))


def _entry_points(root: Path) -> set[str]:
    try:
        data = tomllib.loads(read_text(root / "pyproject.toml")[0])
    except (OSError, tomllib.TOMLDecodeError):
        return set()
    scripts = data.get("project", {}).get("scripts", {})
    poetry = data.get("tool", {}).get("poetry", {}).get("scripts", {})
    return {str(k) for k in (*scripts, *poetry)}


def _package_scripts(root: Path) -> set[str]:
    try:
        data = json.loads(read_text(root / "package.json")[0])
    except (OSError, ValueError):
        return set()
    scripts = data.get("scripts", {}) if isinstance(data, dict) else {}
    return {str(k) for k in scripts} if isinstance(scripts, dict) else set()
