"""Group signals into mechanism clusters, count independent cases, and match each cluster
to the existing lessons of its bases (a possible facet, not a new lesson)."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

from lessons_analytics.retro.model import Cluster, LessonMatch, Signal

_WORD = re.compile(r"[^\W_][\w.-]*[^\W_]|[^\W_]")
_STOP_WORDS = """
the and for with that this from into not but you your are was were has have had its all any
can did does done than then them they there here what when which who why how again also
just only still like please now use used run ran make made file files agent user after
before without within should would could been being one two
это как что так нет для или уже еще ещё она они его меня мне тебя все всё
"""
_STOP = frozenset(_STOP_WORDS.split())
_FAMILY_TARGETS = {
    "not-like-that": "the agent's change was not what the user asked for and had to be redone",
    "told-you": "the agent ignored an instruction the user had already given in the session",
    "wrong": "the agent's result was wrong and the user had to point it out",
    "again": "the agent repeated a mistake the user had already corrected",
    "undo": "the user had to stop the agent or make it undo its last step",
}


@dataclass
class Lesson:
    base_path: str
    lesson_id: str
    status: str | None
    triggers: list[str]
    target: str | None


def cluster_id(mechanism: tuple[str, ...]) -> str:
    return "R-" + hashlib.sha1("\x1f".join(mechanism).encode()).hexdigest()[:8]


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOP}


def _stem(word: str) -> str:
    return word[:5]


def match_lesson(text: str, lessons: list[Lesson]) -> LessonMatch | None:
    """The lesson whose triggers or target wording the text shares most, if it shares
    enough: two triggers, a trigger and a target word, or three target words."""
    have = words(text)
    stems = {_stem(w) for w in have}
    lowered = text.lower()
    best: LessonMatch | None = None
    for lesson in lessons:
        shared = [t for t in lesson.triggers if _trigger_hit(t.lower(), have, lowered)]
        target = {_stem(w) for w in words(lesson.target or "") if len(w) >= 4}
        overlap = len(target & stems)
        if not (len(shared) >= 2 or (shared and overlap >= 1) or overlap >= 3):
            continue
        score = len(shared) + 0.5 * overlap
        if best is None or score > best.score:
            best = LessonMatch(
                lesson.lesson_id, lesson.base_path, lesson.target, lesson.status, shared, score
            )
    return best


def _trigger_hit(trigger: str, have: set[str], lowered: str) -> bool:
    if not trigger.strip():
        return False
    if " " in trigger or "-" in trigger:
        return trigger in lowered
    if len(trigger) >= 4:
        return any(w.startswith(trigger) or (trigger.startswith(w) and len(w) >= 5) for w in have)
    return trigger in have


def signal_text(signal: Signal) -> str:
    detail = signal.detail
    parts = [signal.quote, signal.context or ""]
    for key in ("command", "target_path", "error_line", "subject", "verdict"):
        if isinstance(detail.get(key), str):
            parts.append(detail[key])
    for item in detail.get("files") or []:
        parts.append(str(item))
    return "\n".join(parts)


def build(
    signals: list[Signal],
    lessons: list[Lesson],
    session_bases: dict[str, list[str]],
    repo_bases: dict[str, list[str]],
    default_bases: Sequence[str] = (),
) -> list[Cluster]:
    """Clusters ordered by independent cases (most first). A correction that matches a
    lesson on its own joins that lesson's cluster rather than its wording family. Lessons
    are looked for in the bases of a signal's session (of a commit's repository), else in
    ``default_bases`` (the bases the user named)."""

    def lessons_of(bases: list[str]) -> list[Lesson]:
        wanted = set(bases or default_bases)
        return [le for le in lessons if le.base_path in wanted]

    groups: dict[tuple[str, ...], list[Signal]] = defaultdict(list)
    matches: dict[int, LessonMatch | None] = {}
    for signal in signals:
        pool = lessons_of(_bases_of(signal, session_bases, repo_bases))
        found = match_lesson(signal_text(signal), pool)
        matches[id(signal)] = found
        key = signal.mechanism
        if signal.kind == "correction" and found is not None:
            key = ("correction", found.lesson_id, found.base_path)
        groups[key].append(signal)
    clusters = []
    for key, items in groups.items():
        items.sort(key=lambda s: (s.ts is None, s.ts.isoformat() if s.ts else "", s.signal_id))
        bases = sorted({b for s in items for b in _bases_of(s, session_bases, repo_bases)})
        cluster = Cluster(cluster_id(key), key[0], key, "", "", items, bases)
        cluster.match = _majority([matches[id(s)] for s in items])
        cluster.title, cluster.suggested_target = describe(cluster)
        for signal in items:
            signal.cluster_id = cluster.cluster_id
        clusters.append(cluster)
    clusters.sort(key=lambda c: (-c.independent_cases, -len(c.signals), c.cluster_id))
    return clusters


def _majority(found: list[LessonMatch | None]) -> LessonMatch | None:
    """The lesson that at least half of a cluster's signals match on their own (the best
    scoring of them, with every trigger they share), else None."""
    by_lesson: dict[tuple[str, str], list[LessonMatch]] = defaultdict(list)
    for match in found:
        if match is not None:
            by_lesson[(match.base_path, match.lesson_id)].append(match)
    if not by_lesson:
        return None
    key, hits = max(by_lesson.items(), key=lambda kv: (len(kv[1]), max(m.score for m in kv[1])))
    if 2 * len(hits) < len(found):
        return None
    best = max(hits, key=lambda m: m.score)
    triggers = sorted({t for m in hits for t in m.triggers})
    return LessonMatch(
        best.lesson_id, best.base_path, best.target, best.status, triggers, best.score
    )


def _bases_of(
    signal: Signal, session_bases: dict[str, list[str]], repo_bases: dict[str, list[str]]
) -> list[str]:
    if signal.commit:
        return repo_bases.get(signal.repo or "", [])
    return session_bases.get(signal.session_id or "", [])


def describe(cluster: Cluster) -> tuple[str, str]:
    """A title for the digest and a suggested target sentence for the judge."""
    key, items = cluster.mechanism, cluster.signals
    first: dict[str, Any] = items[0].detail
    if key[0] == "correction":
        families = sorted({s.detail.get("family", "") for s in items})
        if len(key) == 3:
            target = (cluster.match.target if cluster.match else None) or key[1]
            return (
                f"human corrections about {key[1]}",
                f"the user had to correct the agent again on: {target}",
            )
        family = families[0]
        return (
            f"human corrections: '{family}'",
            _FAMILY_TARGETS.get(family, f"the user corrected the agent ({family})"),
        )
    if key[0] == "interrupt":
        if key[1] == "turn":
            return (
                "user interrupted the agent's turn",
                "the agent started work the user did not want and had to be stopped",
            )
        what = f"`{key[2]}`" if len(key) > 2 else key[1]
        return (
            f"user interrupted {key[1]} {what}",
            f"the agent ran {what} when the user did not want it run and was stopped midway",
        )
    if key[0] == "rejected_tool_use":
        what = f"`{key[2]}`" if len(key) > 2 else "a tool call"
        return (
            f"user refused {key[1]} on {what}",
            f"the agent tried to {key[1].lower()} {what} without asking and the user refused",
        )
    if key[0] == "repeated_failure":
        counts = [s.detail.get("count", 2) for s in items]
        return (
            f"`{key[1]}` failing with {key[2]}",
            f"`{key[1]}` failed with {key[2]} {max(counts)} times in one run before the agent "
            "fixed the cause instead of retrying",
        )
    if key[0] == "gate_rejection":
        times = [s.detail["rework_s"] for s in items if s.detail.get("rework_s") is not None]
        loop = f"; rework took {_duration(median(times))} (median)" if times else ""
        return (
            f"{key[1]} returned the work",
            f"work handed to the {key[1]} was returned for rework{loop}",
        )
    kinds = sorted({s.kind for s in items})
    what = "reverted" if kinds == ["revert"] else "reverted or fixed soon after"
    return (
        f"git churn on `{key[2]}` ({key[1]})",
        f"a change to `{key[2]}` was {what} ({first.get('subject', '')!s:.60})",
    )


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
