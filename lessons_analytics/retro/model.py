"""The records of a retro pass: signals, the clusters they group into, and the result."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from lessons_analytics.documents import ClusterRow, LessonMatchRow, RetroDocument

# The kinds of signal, in the order the digest explains them.
KINDS: dict[str, str] = {
    "correction": "a human correcting the agent after its turn",
    "interrupt": "the user interrupting the agent or one of its tool calls",
    "rejected_tool_use": "the user refusing a tool call the agent asked to make, giving a reason",
    "repeated_failure": "the same program or tool failing the same way two or more times in "
    "a run (other arguments or files allowed)",
    "gate_rejection": "a reviewer or gate subagent returning the work",
    "revert": "a commit reverting an earlier one",
    "fix_commit": "a fix commit touching what a commit of the previous hours changed",
}

# The spec's thresholds (lesson-base.md: "at seen: 2 the judge may promote it to a
# candidate"; metrics.md candidate-needs-verdict: >= 3 independent hits, or >= 2 and older
# than 14 days). A cluster at those numbers is due a verdict now.
PROMOTE_AT = 2
VERDICT_AT = 3
VERDICT_AGE = timedelta(days=14)

# signals.jsonl keys, in this order, always present (null when not known).
SIGNAL_KEYS = (
    "signal_id",
    "kind",
    "cluster_id",
    "mechanism",
    "session_id",
    "agent_run_id",
    "runtime",
    "ts",
    "file",
    "line",
    "commit",
    "repo",
    "quote",
    "context",
    "detail",
)


@dataclass
class Signal:
    kind: str
    mechanism: tuple[str, ...]
    quote: str
    session_id: str | None = None
    agent_run_id: str | None = None
    runtime: str | None = None
    ts: datetime | None = None
    file: str | None = None
    line: int | None = None
    commit: str | None = None
    repo: str | None = None
    context: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    cluster_id: str | None = None

    @property
    def signal_id(self) -> str:
        where = f"{self.repo}@{self.commit}" if self.commit else f"{self.file}:{self.line}"
        return f"{self.kind}:{where}"

    @property
    def case(self) -> str:
        """What makes a case independent: its session, or for a commit the commit."""
        if self.commit:
            return f"commit:{self.repo}@{self.commit}"
        return f"session:{self.session_id}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "signal_id": self.signal_id,
            "kind": self.kind,
            "cluster_id": self.cluster_id,
            "mechanism": " / ".join(self.mechanism),
            "session_id": self.session_id,
            "agent_run_id": self.agent_run_id,
            "runtime": self.runtime,
            "ts": self.ts.isoformat() if self.ts else None,
            "file": self.file,
            "line": self.line,
            "commit": self.commit,
            "repo": self.repo,
            "quote": self.quote,
            "context": self.context,
            "detail": self.detail,
        }


@dataclass
class LessonMatch:
    lesson_id: str
    base_path: str
    target: str | None
    status: str | None
    triggers: list[str]
    score: float

    def as_dict(self) -> LessonMatchRow:
        return {
            "lesson_id": self.lesson_id,
            "base": self.base_path,
            "status": self.status,
            "target": self.target,
            "shared_triggers": self.triggers,
            "score": round(self.score, 2),
        }


@dataclass
class Cluster:
    cluster_id: str
    kind: str
    mechanism: tuple[str, ...]
    title: str
    suggested_target: str
    signals: list[Signal]
    bases: list[str] = field(default_factory=list)
    match: LessonMatch | None = None
    shared_words: list[str] = field(default_factory=list)
    shared_key: str = ""

    @property
    def independent_cases(self) -> int:
        """Distinct sessions (a commit for git signals): repeats in one session are one."""
        return len({s.case for s in self.signals})

    @property
    def status(self) -> str:
        return "candidate-ready" if self.independent_cases >= PROMOTE_AT else "quarantine"

    def verdict_due(self, as_of: datetime) -> bool:
        """Ready for the judge's verdict by the spec's thresholds: three independent cases,
        or two when the first is more than 14 days older than ``as_of``."""
        cases = self.independent_cases
        if cases >= VERDICT_AT:
            return True
        stamps = [s.ts for s in self.signals if s.ts]
        return cases >= PROMOTE_AT and bool(stamps) and as_of - min(stamps) > VERDICT_AGE

    @property
    def kinds(self) -> list[str]:
        return sorted({s.kind for s in self.signals})

    @property
    def possible_facet_of(self) -> str | None:
        return self.match.lesson_id if self.match else None

    def as_dict(self, as_of: datetime | None = None) -> ClusterRow:
        stamps = sorted(s.ts for s in self.signals if s.ts)
        return {
            "cluster_id": self.cluster_id,
            "kind": self.kind,
            "kinds": self.kinds,
            "mechanism": " / ".join(self.mechanism),
            "title": self.title,
            "shared_key": self.shared_key,
            "status": self.status,
            "verdict_due": self.verdict_due(as_of) if as_of else None,
            "independent_cases": self.independent_cases,
            "signals": len(self.signals),
            "sessions": sorted({s.session_id for s in self.signals if s.session_id}),
            "commits": sorted({f"{s.repo}@{s.commit}" for s in self.signals if s.commit}),
            "first_seen": stamps[0].isoformat() if stamps else None,
            "last_seen": stamps[-1].isoformat() if stamps else None,
            "suggested_target": self.suggested_target,
            "bases": self.bases,
            "facet_of": self.possible_facet_of,
            "possible_facet_of": self.possible_facet_of,
            "matched_lesson": self.match.as_dict() if self.match else None,
            "signal_ids": [s.signal_id for s in self.signals],
        }


@dataclass
class RetroResult:
    generated_at: datetime
    since: datetime | None
    bases: list[str]
    repos: list[str]
    signals: list[Signal]
    clusters: list[Cluster]
    warnings: list[str] = field(default_factory=list)

    def document(self) -> RetroDocument:
        """The ``retro --json`` document: the cluster summary."""
        ready = sum(1 for c in self.clusters if c.status == "candidate-ready")
        due = sum(1 for c in self.clusters if c.verdict_due(self.generated_at))
        return {
            "schema": "lessons-analytics/retro/1",
            "generated_at": self.generated_at.isoformat(timespec="seconds"),
            "since": self.since.isoformat() if self.since else None,
            "bases": self.bases,
            "repos": self.repos,
            "totals": {
                "signals": len(self.signals),
                "clusters": len(self.clusters),
                "candidate_ready": ready,
                "verdict_due": due,
                "quarantine": len(self.clusters) - ready,
                "by_kind": _count(s.kind for s in self.signals),
            },
            "clusters": [c.as_dict(self.generated_at) for c in self.clusters],
            "warnings": self.warnings,
        }


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out
