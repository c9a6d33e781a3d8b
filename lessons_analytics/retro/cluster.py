"""Group signals into mechanism clusters, count independent cases, and match each cluster
to the existing lessons of its bases (a possible facet, not a new lesson)."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

from lessons_analytics.retro import text as tx
from lessons_analytics.retro.corrections import not_human
from lessons_analytics.retro.detect import short_path
from lessons_analytics.retro.model import Cluster, LessonMatch, Signal
from lessons_analytics.retro.patterns import Patterns

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


# Kinds clustered by what they are about (the words of the user, the reason, the command),
# not by a key: the same mechanism shows up as a correction, a refused call or an interrupt.
_TOPIC_KINDS = {"correction", "interrupt", "rejected_tool_use", "gate_rejection"}
# Two signals of those kinds are one mechanism when they share this many topic words.
_SHARED_WORDS = 2
# A word in more than this share of the topic signals (when there are at least twenty)
# says nothing about a mechanism ("test", "file").
_COMMON_SHARE = 0.4
# What a user says about a mechanism comes first; after that they paste (a HAR, a doc page).
_TOPIC_CHARS = 240
_COMMON_MIN = 20


def topic_text(signal: Signal) -> str:
    """What a signal is about, in words: the user's own words for a correction; the command
    or file and the reason for a refused call or an interrupt; the reviewer's verdict."""
    d = signal.detail
    if signal.kind == "correction":
        return tx.without_logs(signal.quote)[:_TOPIC_CHARS]
    if signal.kind == "gate_rejection":
        return str(d.get("verdict") or signal.quote)
    target = Path(str(d["target_path"])).name if d.get("target_path") else ""
    said = tx.without_logs(signal.context or "")[:_TOPIC_CHARS]
    # options ("-name", "--force") are how, not what; their values stay
    command = re.sub(r"(?<!\S)-{1,2}[\w-]+", " ", str(d.get("command") or ""))
    parts = [tx.without_dirs(command), target, said]
    return "\n".join(parts)


# A word in this share of all the users' turns (when there are at least a hundred) is the
# project's vocabulary ("ocodex", "tokenizer"): it says where, not what went wrong.
_BACKGROUND_SHARE = 0.05
_BACKGROUND_MIN = 100


def common_words(turns: list[dict[str, Any]], pats: Patterns) -> frozenset[str]:
    """Topic words too common in the users' turns of the scope to link two signals."""
    bags = [
        tx.topic_words(tx.after_wrapper(t["text"] or ""))
        for t in turns
        if t.get("text") and not not_human(t["text"], pats)
    ]
    if len(bags) < _BACKGROUND_MIN:
        return frozenset()
    counts: dict[str, int] = defaultdict(int)
    for bag in bags:
        for word in bag:
            counts[word] += 1
    return frozenset(w for w, n in counts.items() if n >= _BACKGROUND_SHARE * len(bags))


def build(
    signals: list[Signal],
    lessons: list[Lesson],
    session_bases: dict[str, list[str]],
    repo_bases: dict[str, list[str]],
    default_bases: Sequence[str] = (),
    common: frozenset[str] = frozenset(),
) -> list[Cluster]:
    """Clusters ordered by independent cases (most first). A cluster is one mechanism:
    repeated failures share the program and the kind of failure, git churn the file, and
    corrections, refusals, interrupts and gate rejections what they are about (two shared
    topic words, across kinds and languages). A correction that matches a lesson on its
    own joins that lesson's cluster. Lessons are looked for in the bases of a signal's
    session (of a commit's repository), else in ``default_bases`` (the bases the user
    named)."""

    def lessons_of(bases: list[str]) -> list[Lesson]:
        wanted = set(bases or default_bases)
        return [le for le in lessons if le.base_path in wanted]

    matches: dict[int, LessonMatch | None] = {}
    for signal in signals:
        pool = lessons_of(_bases_of(signal, session_bases, repo_bases))
        matches[id(signal)] = match_lesson(signal_text(signal), pool)
    clusters = []
    for key, items, shared in _group(signals, matches, common):
        items.sort(key=lambda s: (s.ts is None, s.ts.isoformat() if s.ts else "", s.signal_id))
        bases = sorted({b for s in items for b in _bases_of(s, session_bases, repo_bases)})
        kind = _main_kind(items)
        cluster = Cluster(cluster_id(key), kind, key, "", "", items, bases)
        cluster.match = _majority([matches[id(s)] for s in items])
        cluster.shared_words = shared
        cluster.title, cluster.suggested_target = describe(cluster)
        cluster.shared_key = shared_key(cluster)
        for signal in items:
            signal.cluster_id = cluster.cluster_id
        clusters.append(cluster)
    clusters.sort(key=lambda c: (-c.independent_cases, -len(c.signals), c.cluster_id))
    return clusters


def _group(
    signals: list[Signal], matches: dict[int, LessonMatch | None], common: frozenset[str]
) -> list[tuple[tuple[str, ...], list[Signal], list[str]]]:
    keyed: dict[tuple[str, ...], list[Signal]] = defaultdict(list)
    topical: list[Signal] = []
    for signal in signals:
        found = matches[id(signal)]
        if signal.kind == "correction" and found is not None:
            keyed[("correction", found.lesson_id, found.base_path)].append(signal)
        elif signal.kind in _TOPIC_KINDS:
            topical.append(signal)
        else:
            keyed[signal.mechanism].append(signal)
    out: list[tuple[tuple[str, ...], list[Signal], list[str]]] = [
        (key, items, []) for key, items in keyed.items()
    ]
    return out + _topic_groups(topical, common)


def _topic_groups(
    signals: list[Signal], common: frozenset[str] = frozenset()
) -> list[tuple[tuple[str, ...], list[Signal], list[str]]]:
    bags = [tx.topic_words(topic_text(s)) - common for s in signals]
    counts: dict[str, int] = defaultdict(int)
    for bag in bags:
        for word in bag:
            counts[word] += 1
    if len(signals) >= _COMMON_MIN:
        frequent = {w for w, n in counts.items() if n > _COMMON_SHARE * len(signals)}
        bags = [bag - frequent for bag in bags]
    # Greedy, in time order: a signal joins the group at least half of whose members it
    # shares two words with (the best such group), so that a chain of loosely related
    # signals does not fold into one.
    order = sorted(range(len(signals)), key=lambda i: (signals[i].ts is None, str(signals[i].ts)))
    groups: list[list[int]] = []
    for i in order:
        best, best_share = None, 0.0
        for group in groups:
            linked = sum(1 for j in group if len(bags[i] & bags[j]) >= _SHARED_WORDS)
            share = linked / len(group)
            if share >= 0.5 and share > best_share:
                best, best_share = group, share
        if best is None:
            groups.append([i])
        else:
            best.append(i)
    members = {n: group for n, group in enumerate(groups)}
    out: list[tuple[tuple[str, ...], list[Signal], list[str]]] = []
    for group in members.values():
        items = [signals[i] for i in group]
        shared = _shared_words([bags[i] for i in group])
        if len(items) == 1:
            key: tuple[str, ...] = (items[0].kind, items[0].signal_id)
        else:
            key = ("topic", *shared[:4], min(s.signal_id for s in items))
        out.append((key, items, shared))
    return out


def _shared_words(bags: list[set[str]]) -> list[str]:
    """The words most members share, most shared first (for a single signal: its words)."""
    counts: dict[str, int] = defaultdict(int)
    for bag in bags:
        for word in bag:
            counts[word] += 1
    least = 2 if len(bags) > 1 else 1
    ranked = sorted((w for w, n in counts.items() if n >= least), key=lambda w: (-counts[w], w))
    return ranked[:6]


def _main_kind(items: list[Signal]) -> str:
    counts: dict[str, int] = defaultdict(int)
    for signal in items:
        counts[signal.kind] += 1
    return max(sorted(counts), key=lambda k: counts[k])


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


def surface(stems: list[str], items: list[Signal]) -> list[str]:
    """The words of the members' text behind topic stems (``commit`` for ``commi``)."""
    found: dict[str, str] = {}
    for signal in items:
        for word in tx.WORD.findall(topic_text(signal)):
            stem = tx.stem_of(word.lower())
            if stem in stems and stem not in found:
                found[stem] = word.lower()
    return [found.get(stem, stem) for stem in stems]


def _words(cluster: Cluster, limit: int = 4) -> str:
    return ", ".join(surface(cluster.shared_words[:limit], cluster.signals))


def _what(signal: Signal) -> str:
    d = signal.detail
    if d.get("command"):
        return f"`{tx.one_line(d['command'], 60)}`"
    if d.get("target_path"):
        return f"`{short_path(str(d['target_path']))}`"
    return ""


def failure_text(detail: dict[str, Any]) -> str:
    """The error a failure printed, or what is known when it printed none."""
    if detail.get("error_line"):
        return str(detail["error_line"])
    code = detail.get("exit_code")
    return f"exit code {code}, no error message" if code is not None else "no error message"


def describe(cluster: Cluster) -> tuple[str, str]:
    """A title for the digest and a suggested target sentence for the judge, from the
    signals' own (redacted) words, never from the clustering key."""
    key, items = cluster.mechanism, cluster.signals
    first = items[0]
    d: dict[str, Any] = first.detail
    more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
    if key[0] == "correction" and len(key) == 3:
        target = (cluster.match.target if cluster.match else None) or key[1]
        return (
            f"corrections about {key[1]}: “{tx.one_line(first.quote, 80)}”{more}",
            f"the user had to correct the agent again on: {target}",
        )
    if cluster.kind == "repeated_failure":
        counts = [s.detail.get("count", 2) for s in items]
        variants = sorted({v for s in items for v in s.detail.get("variants") or []})
        command = _what(first)
        if not d.get("command"):
            command = f"{d.get('tool_name')} on {command}" if command else str(d.get("tool_name"))
        others = f" and {len(variants) - 1} similar" if len(variants) > 1 else ""
        return (
            f"{command}{others} failing repeatedly: {tx.one_line(failure_text(d), 90)}",
            f"the agent ran {command} {max(counts)} times in one run and it failed the same "
            "way each time: the cause was not looked for before retrying",
        )
    if cluster.kind == "gate_rejection":
        times = [s.detail["rework_s"] for s in items if s.detail.get("rework_s") is not None]
        loop = f"; rework took {_duration(median(times))} (median)" if times else ""
        agent = d.get("agent", "reviewer")
        return (
            f"{agent} returned the work: “{tx.one_line(d.get('verdict') or first.quote, 80)}”",
            f"work handed to the {agent} was returned for rework{loop}",
        )
    if cluster.kind in ("revert", "fix_commit"):
        kinds = sorted({s.kind for s in items})
        what = "reverted" if kinds == ["revert"] else "reverted or fixed soon after"
        return (
            f"git churn on `{key[2]}` ({key[1]}): {tx.one_line(d.get('subject') or '', 70)}",
            f"a change to `{key[2]}` was {what}",
        )
    about = f" about {_words(cluster)}" if len(items) > 1 and cluster.shared_words else ""
    voiced = next((s for s in items if voice(s)), first)
    said = tx.one_line(voice(voiced), 90)
    if cluster.kind == "rejected_tool_use":
        return (
            f"user {_refused(voiced)}: “{said}”{more}",
            f"the agent asked to {_act(voiced)} and the user refused, saying “{said}”",
        )
    if cluster.kind == "interrupt":
        what = _act(voiced) if voiced.detail.get("tool_name") else "work on its turn"
        why = f" and said “{said}”" if said else " without saying why"
        return (
            "user interrupted the agent" + (f": “{said}”" if said else "") + more,
            f"the agent set out to {what}; the user stopped it midway{why}",
        )
    families = [s.detail.get("family", "") for s in items if s.kind == "correction"]
    family = max(sorted(set(families)), key=families.count) if families else ""
    return (
        f"user corrected the agent: “{said}”{more}",
        _FAMILY_TARGETS.get(family, f"the user corrected the agent ({family})")
        + (f" (about {_words(cluster)})" if about else ""),
    )


def voice(signal: Signal) -> str:
    """The user's (or reviewer's) own words in a signal: what a judge should read."""
    if signal.kind == "correction":
        return signal.quote
    if signal.kind == "rejected_tool_use":
        return str(signal.detail.get("reason") or "")
    if signal.kind == "gate_rejection":
        return str(signal.detail.get("verdict") or signal.quote)
    return signal.context or ""


def _act(signal: Signal) -> str:
    tool = signal.detail.get("tool_name") or "a tool"
    if tool in ("ExitPlanMode", "exit_plan_mode"):
        return "leave plan mode with its plan"
    if signal.detail.get("command"):
        return f"run {_what(signal)}"
    what = _what(signal)
    return f"use {tool} on {what}" if what else f"use {tool}"


def _refused(signal: Signal) -> str:
    if signal.detail.get("tool_name") in ("ExitPlanMode", "exit_plan_mode"):
        return "declined the agent's plan"
    return f"refused to let the agent {_act(signal)}"


def shared_key(cluster: Cluster) -> str:
    """Why the signals of a cluster belong together, in words."""
    key, items = cluster.mechanism, cluster.signals
    if cluster.kind == "repeated_failure":
        error = failure_text(items[0].detail)
        return (
            f"the same program (`{key[1]}`) failing the same way, as in "
            f"“{tx.one_line(error, 100)}” (arguments, paths and numbers may differ)"
        )
    if len(items) == 1:
        return "a single signal"
    if key[0] == "correction" and len(key) == 3:
        triggers = cluster.match.triggers if cluster.match else []
        shared = f" (shared triggers: {', '.join(triggers)})" if triggers else ""
        return f"each matches lesson {key[1]} on its own{shared}"
    if key[0] == "git":
        return f"commits touching `{key[2]}` in {key[1]}"
    kinds = sorted({s.kind for s in items})
    return f"{' and '.join(kinds)} signals sharing the words {_words(cluster, 6)}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
