"""The ``--json`` documents of cli.md as ``TypedDict``s.

The library functions that build a document return its type here and the renderers in
``tables/`` take it, so a key renamed on one side is a mypy error on the other.
``tests/test_documents.py`` holds every type against the document the command really
emits on the scenario warehouse (same keys, recursively), so the types cannot drift.

Values are the library's, before JSON encoding: timestamps are ``datetime`` here and ISO
strings in the emitted JSON. Keys whose names are data (a read method, a verdict word, a
caught-by channel) are ``dict[str, int]``, not a ``TypedDict``.
"""

# no ``from __future__ import annotations``: TypedDict reads NotRequired at run time
from datetime import datetime
from typing import NotRequired, TypedDict

# ---------------------------------------------------------------- heads


class HeadsWeek(TypedDict):
    week: str
    reads: int
    head_reads: int
    prefix_reads: int
    head_20_60: int
    blind_reads: int
    truncated_reads: int
    sessions_reading_index: int
    blind_sessions: int
    partial: bool  # --since/--until cut the week: not a trend point


class HeadsBase(TypedDict):
    base: str
    reads: int
    head_reads: int
    prefix_reads: int
    head_20_60: int
    blind_reads: int
    truncated_reads: int
    sessions_reading_index: int
    blind_sessions: int
    by_method: dict[str, int]
    by_week: list[HeadsWeek]


class HeadsDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[HeadsBase]


# ---------------------------------------------------------------- coverage


class CoverageWeek(TypedDict):
    week: str
    sessions_in_scope: int
    sessions_reading_index: int
    sessions_recalled: int
    coverage: float | None
    partial: bool  # --since/--until cut the week: not a trend point


class CoverageBase(TypedDict):
    base: str
    sessions_in_scope: int
    sessions_reading_index: int
    sessions_recalled: int
    coverage: float | None
    index_read_share: float | None
    by_week: list[CoverageWeek]


class CoverageDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[CoverageBase]


# ---------------------------------------------------------------- hits

MaxClass = TypedDict("MaxClass", {"class": str | None, "share": float | None})


class HitsClass(TypedDict):
    lesson_class: str | None
    hits: int
    share: float | None


class HitRef(TypedDict):
    lesson_id: str
    file_path: str
    line_no: int
    session_id: str | None
    recorded_recalled: str | None
    recall: str
    missed_at: datetime | None
    caught_by: str | None


class HitsLesson(TypedDict):
    id: str
    lesson_class: str | None
    status: str | None
    hits: int
    independent: int
    recalled: int
    index_only: int
    not_recalled: int
    unknown: int
    disagreements: int


class HitsBase(TypedDict):
    base: str
    hits: int
    independent_hits: int
    sessions_found: int
    by_recall: dict[str, int]
    by_caught: dict[str, int]
    recall_by_caught: dict[str, dict[str, int]]
    top3_share: float | None
    max_class: MaxClass
    by_class: list[HitsClass]
    disagreements: list[HitRef]
    lessons: list[HitsLesson]


class HitsDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[HitsBase]


# ---------------------------------------------------------------- bodies


class BodiesLesson(TypedDict):
    id: str
    reads: int
    tokens: int
    body_bytes: int
    journal_share: float | None
    large: bool
    sessions: int


class BodiesBase(TypedDict):
    base: str
    reads: int
    tokens: int
    large_reads: int
    large_tokens: int
    large_share: float | None
    lessons: list[BodiesLesson]


class BodiesDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[BodiesBase]


# ---------------------------------------------------------------- cost


class CostWeek(TypedDict):
    week: str
    calls: int
    hours: float | None
    partial: bool  # --since/--until cut the week: not a trend point


class RitualCost(TypedDict):
    """One ritual; ``base`` only for a ritual a lesson declares (``cost --rituals``)."""

    base: NotRequired[str]
    pattern: str
    lesson: str | None
    calls: int
    untimed_calls: int
    total_hours: float
    hours_per_week: float | None
    weeks: int
    by_week: list[CostWeek]
    median_s: float | None
    p90_s: float | None
    share_of_active_time: float | None
    sessions_in_scope: int


class CostDocument(TypedDict):
    schema: str
    generated_at: str
    rituals: list[RitualCost]


# ---------------------------------------------------------------- recalled


class RecallEvidence(TypedDict):
    base_path: str
    lesson_id: str
    session_id: str
    agent_run_id: str | None
    kind: str
    surfaced_at: datetime | None
    tool_use_id: str | None
    evidence: str | None
    transcript_file: str
    transcript_line: int


class RecalledDocument(TypedDict):
    schema: str
    lesson: str
    session: str
    before: str | None
    status: str
    evidence: list[RecallEvidence]


# ---------------------------------------------------------------- effect


class LessonEffect(TypedDict):
    lesson_id: str
    status: str | None
    lesson_class: str | None
    evidence_helped: str | None
    activated_at: datetime | None
    deactivated_at: datetime | None
    activation_source: str | None
    journal_hits: int
    exposed_before: int
    hits_before: int
    exposed_after: int
    hits_after: int
    hits_without_session: int
    recalled_sessions: int
    recalled_hits: int
    unrecalled_sessions: int
    unrecalled_hits: int
    weeks_after: int | None
    window_sessions: int
    window_hits: int
    rate_before: float | None
    rate_before_lo: float | None
    rate_before_hi: float | None
    rate_after: float | None
    rate_after_lo: float | None
    rate_after_hi: float | None
    diff: float | None
    diff_lo: float | None
    diff_hi: float | None
    p_value: float | None
    sessions_needed: int | None
    sessions_still_needed: int | None
    recalled_rate: float | None
    unrecalled_rate: float | None
    recall_diff: float | None
    recall_diff_lo: float | None
    recall_diff_hi: float | None
    recall_p_value: float | None
    cost_hours_per_week: float
    cost_tokens_per_week: float
    avoided_hits_per_week_max: float | None
    verdict: str
    verdict_reason: str


class Intervention(TypedDict):
    commit: str
    committed_at: datetime
    kinds: list[str]
    details: list[str]
    group_id: int
    group_commits: int
    confounded: bool
    group_first_at: datetime
    group_last_at: datetime
    sessions_before: int
    recalled_before: int
    reading_index_before: int
    blind_before: int
    hit_sessions_before: int
    sessions_after: int
    recalled_after: int
    reading_index_after: int
    blind_after: int
    hit_sessions_after: int
    coverage_before: float | None
    coverage_before_lo: float | None
    coverage_before_hi: float | None
    coverage_after: float | None
    coverage_after_lo: float | None
    coverage_after_hi: float | None
    coverage_diff: float | None
    coverage_diff_lo: float | None
    coverage_diff_hi: float | None
    blind_share_before: float | None
    blind_share_before_lo: float | None
    blind_share_before_hi: float | None
    blind_share_after: float | None
    blind_share_after_lo: float | None
    blind_share_after_hi: float | None
    blind_share_diff: float | None
    blind_share_diff_lo: float | None
    blind_share_diff_hi: float | None
    hit_rate_before: float | None
    hit_rate_before_lo: float | None
    hit_rate_before_hi: float | None
    hit_rate_after: float | None
    hit_rate_after_lo: float | None
    hit_rate_after_hi: float | None
    hit_rate_diff: float | None
    hit_rate_diff_lo: float | None
    hit_rate_diff_hi: float | None


class LessonWeek(TypedDict):
    lesson_id: str
    week: str
    period: str
    exposed_sessions: int
    hits: int
    hits_without_session: int


class EffectEvidence(TypedDict):
    lesson_id: str
    session_id: str
    started_at: datetime
    week: str
    period: str
    is_hit: bool
    is_recalled: bool
    hits: int
    transcript_file: str
    first_recall_at: datetime | None
    recall_file: str | None
    recall_line: int | None
    first_missed_at: datetime | None
    journal_file: str | None
    journal_line: int | None


class EffectBase(TypedDict):
    base: str
    lessons: list[LessonEffect]
    interventions: list[Intervention]
    weeks: list[LessonWeek]
    evidence: list[EffectEvidence]
    by_verdict: dict[str, int]


class EffectTotals(TypedDict):
    lessons: int
    interventions: int
    by_verdict: dict[str, int]


class EffectDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[EffectBase]
    totals: EffectTotals


# ---------------------------------------------------------------- check and lint


class FailureRow(TypedDict):
    file: str
    line: int
    rule: str
    message: str


class CheckBase(TypedDict):
    base: str
    ok: bool
    failures: list[FailureRow]


class CheckDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[CheckBase]


class FindingRow(TypedDict):
    file: str
    line: int
    severity: str
    rule: str
    message: str


class LintBase(TypedDict):
    base: str
    ok: bool
    errors: int
    warnings: int
    findings: list[FindingRow]


class LintDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[LintBase]


# ---------------------------------------------------------------- stats


class SignRow(TypedDict):
    name: str
    value: object  # a count, a share or a date, as the sign measures
    threshold: object
    fired: bool
    lessons: list[str]


class BaseStatsRow(TypedDict):
    base: str
    as_of: str
    sleep_due: bool
    source: str  # "warehouse" (as the last ingest read it) or "files"
    changed_since_ingest: bool | None  # None: read from its files, nothing to compare
    signs: list[SignRow]


class StatsDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[BaseStatsRow]
    marked: list[str]


# ---------------------------------------------------------------- ingest


class LoadErrorRow(TypedDict):
    file: str
    line: int
    reason: str


class IngestTotals(TypedDict):
    """The warehouse's counts after a run."""

    sessions: int
    agent_runs: int
    tool_calls: int
    by_tool: dict[str, int]
    file_reads: int
    bases: int
    lessons: int
    hits: int
    load_errors: int
    errors: list[LoadErrorRow]


class IngestDocument(IngestTotals):
    files_seen: int
    files_loaded: int
    lines_loaded: int


# ---------------------------------------------------------------- cards


class CardsBase(TypedDict):
    base: str


class Card(TypedDict):
    number: int
    base: str
    id: str
    file: str
    text: str
    warnings: list[str]


class CardsDocument(TypedDict):
    schema: str
    generated_at: str
    bases: list[CardsBase]
    page: int
    pages: int
    page_size: int
    total: int
    cards: list[Card]
    footer: str


# ---------------------------------------------------------------- report


class ReportDocument(TypedDict):
    """The files ``report --json`` wrote (the report's numbers are in ``data``)."""

    schema: str
    week: str
    directory: str
    markdown: str
    html: str
    data: str
    charts: list[str]


# ---------------------------------------------------------------- retro


class LessonMatchRow(TypedDict):
    lesson_id: str
    base: str
    status: str | None
    target: str | None
    shared_triggers: list[str]
    score: float


class ClusterRow(TypedDict):
    cluster_id: str
    kind: str
    kinds: list[str]
    mechanism: str
    title: str
    shared_key: str
    status: str
    verdict_due: bool | None
    independent_cases: int
    signals: int
    sessions: list[str]
    commits: list[str]
    first_seen: str | None
    last_seen: str | None
    suggested_target: str
    bases: list[str]
    facet_of: str | None
    possible_facet_of: str | None
    matched_lesson: LessonMatchRow | None
    signal_ids: list[str]


class RetroTotals(TypedDict):
    signals: int
    clusters: int
    candidate_ready: int
    verdict_due: int
    quarantine: int
    by_kind: dict[str, int]


class RetroDocument(TypedDict):
    schema: str
    generated_at: str
    since: str | None
    bases: list[str]
    repos: list[str]
    totals: RetroTotals
    clusters: list[ClusterRow]
    warnings: list[str]


# ---------------------------------------------------------------- export


class ParquetExportSummary(TypedDict):
    machine: str
    written: int  # partition folders written this run
    removed: int
    unchanged: int
    partitions: list[str]


class OtelExportSummary(TypedDict):
    path: str | None
    semconv: str
    traces: int
    spans: int
    session_spans: int
    agent_spans: int
    tool_spans: int
    events: int
    evaluation_events: int
    read_events: int
    recall_labels: dict[str, int]
    skipped: dict[str, int]  # only the reasons that occurred


class OcelExportSummary(TypedDict):
    path: str
    layout: str
    events: int
    objects: int
    event_object_relationships: int
    object_object_relationships: int
    event_types: dict[str, int]
    object_types: dict[str, int]
    skipped: dict[str, int]


class ExportDocument(TypedDict):
    schema: str
    parquet: NotRequired[ParquetExportSummary]
    otel: NotRequired[OtelExportSummary]
    ocel: NotRequired[OcelExportSummary]


class ImportSummary(TypedDict):
    machines: list[str]
    rows: dict[str, int]
    shared_paths: int  # transcript paths exported by more than one machine
    shared_bases: list[str]


# ---------------------------------------------------------------- check-warehouse


class AuditRow(TypedDict):
    model: str
    audit: str
    failing_rows: int
    sample: dict[str, object] | None  # the first offending row (key columns)
    ok: bool


class AuditTotals(TypedDict):
    audits: int
    passed: int
    failed: int


class CheckWarehouseDocument(TypedDict):
    schema: str
    generated_at: str
    audits: list[AuditRow]
    totals: AuditTotals
