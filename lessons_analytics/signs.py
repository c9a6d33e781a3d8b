"""The judge's sleep signs (metrics.md §6) for one base, and the sleep marker line.

The signs read the base as the warehouse holds it (``warehouse_stats``), so a report or a
night's signs come from one file. ``base_stats`` on a base path uses the warehouse when it
holds that base, and says whether the base's files changed since the last ingest
(``changed_since_ingest``: the signs are then those of the last ingest); a base the
warehouse does not hold is read from its files, and the signs that need transcripts
(recalled-but-failed, never-recalled, costly-ritual, costly-body, helped-disagrees) are
reported with ``value`` null and never fire.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from lessons_analytics import effect, metrics
from lessons_analytics.check import LessonFile, check_index
from lessons_analytics.documents import BaseStatsRow, SignRow
from lessons_analytics.engine import duckdb
from lessons_analytics.errors import BaseNotFound
from lessons_analytics.lessonbase.locate import resolve_base
from lessons_analytics.lessonbase.reader import load_base
from lessons_analytics.lessonbase.shapes import is_sleep_marker
from lessons_analytics.redact import redact
from lessons_analytics.settings import Thresholds

BASE_LEVEL = ("candidates-without-verdict", "class-share", "index-layout")


@dataclass
class Sign:
    name: str
    value: Any
    threshold: Any
    fired: bool
    lessons: list[str] = field(default_factory=list)

    def as_dict(self) -> SignRow:
        return {"name": self.name, "value": self.value, "threshold": self.threshold,
                "fired": self.fired, "lessons": self.lessons}  # fmt: skip


@dataclass
class BaseStats:
    base: str
    as_of: date
    signs: list[Sign]
    max_lessons: int
    source: str = "files"  # "warehouse": the base as the last ingest read it
    changed_since_ingest: bool | None = None  # None: the files were not looked at

    @property
    def sleep_due(self) -> bool:
        return sleep_due(self.signs, self.max_lessons)

    def as_dict(self) -> BaseStatsRow:
        return {"base": self.base, "as_of": self.as_of.isoformat(), "sleep_due": self.sleep_due,
                "source": self.source, "changed_since_ingest": self.changed_since_ingest,
                "signs": [s.as_dict() for s in self.signs]}  # fmt: skip


def sleep_due(signs: list[Sign], max_lessons: int) -> bool:
    """Any base-level sign fired, or lesson-level signs fired for more than N lessons."""
    if any(s.fired for s in signs if s.name in BASE_LEVEL):
        return True
    lessons = {
        lesson for s in signs if s.fired and s.name not in BASE_LEVEL for lesson in s.lessons
    }
    return len(lessons) > max_lessons


@dataclass(frozen=True)
class SignInputs:
    """What the signs read of a base: its lessons and journal lines (rows with the columns
    of ``raw_lessons`` / ``raw_hits`` they use) and its INDEX.md (None: there is none)."""

    base_path: str
    lessons: list[dict[str, Any]]
    hits: list[dict[str, Any]]
    index_path: str
    index_text: str | None

    @classmethod
    def from_files(cls, base: Path) -> SignInputs:
        snap = load_base(base)
        base_path = snap.base["base_path"]
        index = snap.index_current[0] if snap.index_current else None
        return cls(
            base_path,
            snap.lessons,
            snap.hits,
            index["file_path"] if index else str(Path(base_path) / "INDEX.md"),
            index["text"] if index else None,
        )

    @classmethod
    def from_warehouse(cls, con: duckdb.DuckDBPyConnection, base: str) -> SignInputs | None:
        """None when the warehouse does not hold the base."""
        rows = _held(con, base)
        if not rows:
            return None
        return cls(
            base,
            metrics.query_rows(con, "sign_lessons", bases=[base]),
            metrics.query_rows(con, "sign_hits", bases=[base]),
            rows[0]["index_path"] or str(Path(base) / "INDEX.md"),
            rows[0]["index_text"],
        )

    def lesson_files(self) -> list[LessonFile]:
        return [
            LessonFile(row["lesson_id"], Path(row["file_path"]).name, row["status"])
            for row in self.lessons
        ]


def _held(con: duckdb.DuckDBPyConnection, base: str) -> list[dict[str, Any]]:
    try:
        return metrics.query_rows(con, "sign_base", bases=[base])
    except duckdb.CatalogException:  # layers never built, or built by an older version
        return []


def bases_stats(
    bases: list[Path],
    as_of: date,
    thresholds: Thresholds,
    con: duckdb.DuckDBPyConnection | None,
) -> list[BaseStats]:
    """``base_stats`` of each base in turn; with a warehouse, the per-base questions that
    every base asks are asked once for all of them."""
    if con is None:
        return [base_stats(base, as_of, thresholds, con) for base in bases]
    resolved = _resolved(bases)
    with metrics.rows_per_base(con, resolved, metrics.PER_BASE):
        effect.lesson_rows_ahead(con, thresholds)  # the slowest question, asked last
        effect.ritual_times_ahead(con, resolved)
        return [base_stats(base, as_of, thresholds, con) for base in bases]


def _resolved(targets: list[Path]) -> list[str]:
    """The bases' paths as their queries name them (one that is no base is left to
    ``base_stats`` to refuse, in its turn)."""
    out = []
    for base in targets:
        try:
            out.append(str(resolve_base(base)))
        except BaseNotFound:
            continue
    return list(dict.fromkeys(out))


def base_stats(
    base: Path,
    as_of: date,
    thresholds: Thresholds,
    con: duckdb.DuckDBPyConnection | None = None,
) -> BaseStats:
    """The signs of the base at ``base`` (its LESSONS folder or the project holding it):
    from the warehouse ``con`` when it holds the base, else from the base's files."""
    path = resolve_base(base)
    held = _held(con, str(path)) if con is not None else []
    if con is not None and held:
        stats = warehouse_stats(con, str(path), as_of, thresholds)
        # here: the base loader imports the raw schema and Polars, which a base read from
        # its files alone never needs
        from lessons_analytics.lessonbase import loading as baseload

        stats.changed_since_ingest = baseload.fingerprint(path) != held[0]["fingerprint"]
        return stats
    return _stats(SignInputs.from_files(path), as_of, thresholds, con)


def warehouse_stats(
    con: duckdb.DuckDBPyConnection,
    base: str,
    as_of: date,
    thresholds: Thresholds,
) -> BaseStats:
    """The signs of a base the warehouse holds, from the warehouse alone (no file, no
    git): the base as the last ingest read it. ``BaseNotFound`` when it does not hold it."""
    inputs = SignInputs.from_warehouse(con, base)
    if inputs is None:
        raise BaseNotFound(f"{base}: not in the warehouse; ingest it first")
    stats = _stats(inputs, as_of, thresholds, con)
    stats.source = "warehouse"
    return stats


def _stats(
    inputs: SignInputs,
    as_of: date,
    thresholds: Thresholds,
    con: duckdb.DuckDBPyConnection | None,
) -> BaseStats:
    t = thresholds
    signs = _base_signs(inputs, as_of, t)
    signs.extend(_transcript_signs(inputs, t, con))
    failures = check_index(inputs.index_path, inputs.index_text, inputs.lesson_files(), t)
    signs.append(Sign("index-layout", len(failures), 0, bool(failures)))
    return BaseStats(inputs.base_path, as_of, signs, int(t["sleep_due_lessons"]))


def _lessons(snap: SignInputs, status: str) -> list[dict[str, Any]]:
    return [row for row in snap.lessons if row["status"] == status]


def _hits(snap: SignInputs, lesson_id: str) -> list[dict[str, Any]]:
    return [h for h in snap.hits if h["lesson_id"] == lesson_id and h["is_hit"]]


def independent(hits: list[dict[str, Any]]) -> int:
    """Distinct sessions; each hit without a session counts as one."""
    sessions = {h["session_id"] for h in hits if h["session_id"]}
    return len(sessions) + sum(1 for h in hits if not h["session_id"])


def _day(value: object) -> date | None:
    if isinstance(value, datetime):
        return value.astimezone(UTC).date()
    return value if isinstance(value, date) else None


def _last_hit_day(hits: list[dict[str, Any]]) -> date | None:
    days = [d for h in hits if (d := _day(h["ts"]) or _day(h["hit_date"])) is not None]
    return max(days) if days else None


def _born(lesson: dict[str, Any]) -> date | None:
    return _day(lesson["created"]) or _day(lesson["first_commit_at"])


def _age(as_of: date, since: date | None) -> int | None:
    return (as_of - since).days if since else None


def _base_signs(snap: SignInputs, as_of: date, t: Thresholds) -> list[Sign]:
    candidates = _lessons(snap, "candidate")
    needs, stale = [], []
    for lesson in candidates:
        hits = _hits(snap, lesson["lesson_id"])
        age = _age(as_of, _born(lesson))
        n = independent(hits)
        if n >= t["candidate_independent_hits"] or (
            n >= t["candidate_aged_hits"] and age is not None and age > t["candidate_age_days"]
        ):
            needs.append(lesson["lesson_id"])
        # movement: the last hit (a lesson never hit counts from its birth) or commit
        moved = [d for d in (_last_hit_day(hits) or _born(lesson),
                             _day(lesson["last_commit_at"])) if d]  # fmt: skip
        idle = _age(as_of, max(moved)) if moved else None
        if idle is not None and idle > t["stale_candidate_days"]:
            stale.append(lesson["lesson_id"])
    too_many = len(candidates) > t["candidates_max"]
    signs = [
        Sign("candidate-needs-verdict", len(needs),
             {"independent_hits": t["candidate_independent_hits"],
              "aged_hits": t["candidate_aged_hits"], "age_days": t["candidate_age_days"]},
             bool(needs), needs),
        Sign("candidates-without-verdict", len(candidates), t["candidates_max"], too_many,
             [c["lesson_id"] for c in candidates] if too_many else []),
        Sign("stale-candidate", len(stale), t["stale_candidate_days"], bool(stale), stale),
        _class_share(snap, t),
    ]  # fmt: skip
    signs.extend(_active_signs(snap, as_of, t))
    signs.extend(_body_signs(snap, t))
    return signs


def _class_share(snap: SignInputs, t: Thresholds) -> Sign:
    classes = {row["lesson_id"]: row["lesson_class"] for row in snap.lessons}
    hits = [h for h in snap.hits if h["is_hit"]]
    counts: dict[str, int] = {}
    for hit in hits:
        cls = classes.get(hit["lesson_id"])
        if cls:
            counts[cls] = counts.get(cls, 0) + 1
    if not hits or not counts:
        return Sign("class-share", None, t["class_share"], False)
    top = max(sorted(counts), key=lambda c: counts[c])
    share = counts[top] / len(hits)
    lessons = sorted(lid for lid, cls in classes.items() if cls == top)
    fired = share >= t["class_share"]
    return Sign(
        "class-share",
        {"class": top, "share": share},
        t["class_share"],
        fired,
        lessons if fired else [],
    )


def _active_signs(snap: SignInputs, as_of: date, t: Thresholds) -> list[Sign]:
    active = _lessons(snap, "active")
    quiet, unconfirmed = [], []
    for lesson in active:
        last = _last_hit_day(_hits(snap, lesson["lesson_id"])) or _born(lesson)
        idle = _age(as_of, last)
        if idle is not None and idle > t["active_without_hit_days"]:
            quiet.append(lesson["lesson_id"])
        if lesson["evidence_helped"] is not True:
            unconfirmed.append(lesson["lesson_id"])
    return [
        Sign("active-without-hit", len(quiet), t["active_without_hit_days"], bool(quiet), quiet),
        Sign("active-unconfirmed", len(unconfirmed), None, bool(unconfirmed), unconfirmed),
    ]


def _body_signs(snap: SignInputs, t: Thresholds) -> list[Sign]:
    fat = [row["lesson_id"] for row in snap.lessons if row["body_bytes"] > t["fat_body_bytes"]]
    heavy = [
        row["lesson_id"] for row in snap.lessons
        if row["body_bytes"] and row["journal_bytes"] / row["body_bytes"] > t["journal_share"]
    ]  # fmt: skip
    return [
        Sign("fat-body", len(fat), t["fat_body_bytes"], bool(fat), fat),
        Sign("journal-share", len(heavy), t["journal_share"], bool(heavy), heavy),
    ]


def _transcript_signs(
    snap: SignInputs, t: Thresholds, con: duckdb.DuckDBPyConnection | None
) -> list[Sign]:
    names = [("recalled-but-failed", t["recalled_but_failed_hits"]),
             ("never-recalled", t["never_recalled_hits"]),
             ("costly-ritual", t["costly_ritual_hours_per_week"]),
             ("costly-body", t["costly_body_tokens_per_week"]),
             ("helped-disagrees", None)]  # fmt: skip
    base = snap.base_path
    if con is None or not _in_warehouse(con, base):
        return [Sign(name, None, threshold, False) for name, threshold in names]
    filters = metrics.Filters((base,))
    per_lesson = metrics.query_rows(con, "hits_by_lesson", **filters.params())
    failed = sorted(
        r["lesson_id"] for r in per_lesson if r["recalled"] >= t["recalled_but_failed_hits"]
    )
    costs = effect.lesson_costs(con, filters, t)
    # hits of unknown attribution say nothing about recall: only known ones are weighed
    never = sorted(
        r["lesson_id"] for r in per_lesson
        if r["hits"] - r["unknown"] >= t["never_recalled_hits"] and r["recalled"] == 0
    )  # fmt: skip
    return [
        Sign(
            "recalled-but-failed", len(failed), t["recalled_but_failed_hits"], bool(failed), failed
        ),
        Sign("never-recalled", len(never), t["never_recalled_hits"], bool(never), never),
        _costly_ritual(costs, t),
        _costly_body(costs, t),
        _helped_disagrees(con, filters, t, costs),
    ]


# what a lesson's `helped` field claims, against the measured verdicts that contradict it
_CONTRADICTED_BY = {True: ("not holding", "not surfaced"), False: ("helps",)}


def _helped_disagrees(
    con: duckdb.DuckDBPyConnection, filters: metrics.Filters, t: Thresholds, costs: effect.Costs
) -> Sign:
    """Active lessons whose ``helped`` says true while the measure says it does not hold or
    is not surfaced, or says false while the measure says it helps. An unmeasured lesson
    (``insufficient evidence``) and ``helped: null`` contradict nothing."""
    rows = effect.lesson_effect_rows(con, filters, t, costs)
    lessons = sorted(
        row["lesson_id"] for row in rows
        if row["status"] == "active" and row["evidence_helped"] is not None
        and row["verdict"] in _CONTRADICTED_BY[row["evidence_helped"]]
    )  # fmt: skip
    return Sign("helped-disagrees", len(lessons), None, bool(lessons), lessons)


def _in_warehouse(con: duckdb.DuckDBPyConnection, base: str) -> bool:
    try:
        found = metrics.query_rows(con, "bases", bases=[base])
    except duckdb.CatalogException:  # a warehouse whose layers were never built
        return False
    return bool(found)


def _costly_ritual(costs: effect.Costs, t: Thresholds) -> Sign:
    """Lessons whose ritual takes more hours a week than the threshold (``effect``'s cost of
    a ritual: its timed calls over the weeks of the base's sessions)."""
    hours = {lesson: cost[0] for (_base, lesson), cost in costs.items()}
    costly = sorted(
        lid for lid, value in hours.items() if value > t["costly_ritual_hours_per_week"]
    )
    worst = max([0.0, *hours.values()])
    return Sign("costly-ritual", worst, t["costly_ritual_hours_per_week"], bool(costly), costly)


def _costly_body(costs: effect.Costs, t: Thresholds) -> Sign:
    """Lessons whose body reads cost more tokens a week than the threshold."""
    tokens = {lesson: cost[1] for (_base, lesson), cost in costs.items()}
    limit = t["costly_body_tokens_per_week"]
    costly = sorted(lid for lid, value in tokens.items() if value > limit)
    return Sign("costly-body", max([0.0, *tokens.values()]), limit, bool(costly), costly)


# ---------------------------------------------------------------- the marker line


def marker_line(stats: BaseStats) -> str | None:
    """``<!-- sleep-due: DATE · reasons: ... -->`` or None when nothing fires."""
    if not stats.sleep_due:
        return None
    reasons = []
    for sign in stats.signs:
        if not sign.fired:
            continue
        if sign.name == "class-share":
            name = _marker_safe(sign.value["class"])
            reasons.append(f"class-share={name}:{round(100 * sign.value['share'])}%")
        elif isinstance(sign.value, float):
            reasons.append(f"{sign.name}={sign.value:.1f}")
        else:
            reasons.append(f"{sign.name}={_marker_safe(sign.value)}")
    return f"<!-- sleep-due: {stats.as_of.isoformat()} · reasons: {', '.join(reasons)} -->"


_UNSAFE_IN_MARKER = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029<>]+|-{2,}")


def _marker_safe(value: object, limit: int = 60) -> str:
    """Data in the marker: secrets redacted, one line, no ``<``/``>`` and no ``--`` (an HTML
    comment ends at ``--``), at most ``limit`` characters: one comment line whatever the data."""
    text = _UNSAFE_IN_MARKER.sub(
        lambda m: "-" if m.group().startswith("-") else " ", redact(str(value))
    )
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def apply_marker(index: Path, marker: str | None) -> bool:
    """Write, refresh or remove the marker line, every other byte unchanged; written
    atomically (temporary file + rename). True when the file changed.

    Refused (``PermissionError``) when ``INDEX.md`` is a link leading out of its base's
    folder or is read-only: the marker never writes outside the base and never replaces a
    file its owner protected. Temporary files a killed earlier run left are removed."""
    _check_writable(index)
    _remove_stale_temporaries(index.parent)
    data = index.read_bytes()
    lines = data.splitlines(keepends=True)
    newline = next((_ending(line) for line in lines if _ending(line)), b"\n")
    first_heading = next((i for i, line in enumerate(lines) if _H2.match(line)), len(lines))
    found = [i for i in range(first_heading) if is_sleep_marker(lines[i])]
    text = marker.encode("utf-8") if marker is not None else None
    if text is not None and (b"\n" in text or b"\r" in text or text.count(b"-->") != 1):
        raise ValueError(f"not a one-line marker: {marker!r}")
    if found:
        # refresh in place, keeping the line's own ending; a second marker (a layout
        # failure) goes, and so do the lines a broken earlier marker spilled
        drop = set(found[1:]) | _spilled(lines, found[0])
        out = [line for i, line in enumerate(lines) if i not in drop]
        if text is None:
            del out[found[0]]
        else:
            out[found[0]] = text + _ending(lines[found[0]])
    elif text is not None:
        out = list(lines)
        # right after the ``# `` title; without a title, just above the first ``##``
        title = next((i for i in range(first_heading) if _TITLE.match(lines[i])), None)
        at = first_heading if title is None else title + 1
        if at and not _ending(out[at - 1]):
            out[at - 1] += newline
        out.insert(at, text + newline)
    else:
        return False
    new = b"".join(out)
    if new == data:
        return False
    _atomic_write(index, new)
    return True


# The same shapes bases.py reads: a section heading is ``##`` not followed by a third
# ``#``; a leading BOM is not text. The marker line is lessonbase.shapes' one definition.
_H2 = re.compile(rb"^(?:\xef\xbb\xbf)?##(?!#)")
_TITLE = re.compile(rb"^(?:\xef\xbb\xbf)?#\s")


# A marker written before class names were made safe could hold line breaks: the lines
# after it, up to the one holding the class-share tail ``:NN% -->`` (or ``:NN%, sign=…
# -->``), are the spilled rest of the same marker (a fake ``## Active`` table, say).
_MARKER_TAIL = re.compile(rb":\d+%(?:, [a-z-]+=[^\r\n]*)? -->\s*$")
_SPILL_LINES = 200


def _spilled(lines: list[bytes], at: int) -> set[int]:
    """The lines after the marker at ``at`` that belong to it (a broken older marker)."""
    if b"class-share=" not in lines[at]:
        return set()
    for end in range(at + 1, min(len(lines), at + 1 + _SPILL_LINES)):
        if _MARKER_TAIL.search(lines[end]):
            return set(range(at + 1, end + 1))
    return set()


def _check_writable(index: Path) -> None:
    folder = index.parent.resolve()
    target = index.resolve()
    if target.parent != folder:
        raise PermissionError(
            f"{index} leads to {target}, outside its base {folder}: not writing there"
        )
    mode = target.stat().st_mode
    if not mode & stat.S_IWUSR or not os.access(target, os.W_OK):
        raise PermissionError(f"{index} is read-only: not replacing it")


_TEMPORARY = ".INDEX.md.*.tmp"
_STALE_AFTER_S = 60.0


def _remove_stale_temporaries(folder: Path) -> None:
    """A run killed between writing its temporary file and the rename leaves it behind."""
    now = time.time()
    for leftover in folder.glob(_TEMPORARY):
        with contextlib.suppress(OSError):
            if now - leftover.lstat().st_mtime > _STALE_AFTER_S:
                leftover.unlink()


def _ending(line: bytes) -> bytes:
    if line.endswith(b"\r\n"):
        return b"\r\n"
    return line[-1:] if line.endswith((b"\n", b"\r")) else b""


def _atomic_write(path: Path, data: bytes) -> None:
    path = path.resolve()  # through a symlink (checked to stay in the base): its target
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".INDEX.md.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
