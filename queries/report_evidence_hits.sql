-- report_evidence_hits: every hit with the lines that make it: its journal line in the lesson
-- file, the transcript line of the miss and, for a recalled hit, the line where the lesson
-- surfaced before the miss (the report's evidence lists).
-- Grain: one row per hit. Parameters: $bases, $since, $until (as in hits_list: the miss
-- time, or the line's date when the miss time is unknown).
-- Choices: the miss line is the last line of the session's own transcript (not a
-- subagent's) stamped at or before the miss time; null when the session or the time is
-- unknown.
with

hits as (
    select *, from fct_hit_attribution
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or coalesce(missed_at, hit_date::timestamptz) >= $since)
        and ($until is null or coalesce(missed_at, hit_date::timestamptz) < $until)
),

sessions as (
    select
        session_id,
        file_path as transcript_file,
    from fct_sessions
),

miss_lines as (
    select
        hits.base_path,
        hits.file_path,
        hits.line_no,
        max(events.line_no) as miss_line,
    from hits
    inner join sessions using (session_id)
    inner join fct_events as events
        on
            hits.session_id = events.session_id
            and sessions.transcript_file = events.file_path
            and hits.missed_at >= events.ts
    group by hits.base_path, hits.file_path, hits.line_no
),

recall_lines as (
    select
        hits.base_path,
        hits.file_path,
        hits.line_no,
        min(evidence.transcript_file) as recall_file,
        min(evidence.transcript_line) as recall_line,
    from hits
    inner join fct_recall_evidence as evidence
        on
            hits.base_path = evidence.base_path
            and hits.lesson_id = evidence.lesson_id
            and hits.session_id = evidence.session_id
            and evidence.kind in ('body', 'quoted')
            and hits.first_recall_at = evidence.surfaced_at
    group by hits.base_path, hits.file_path, hits.line_no
)

select
    hits.base_path,
    hits.lesson_id,
    hits.lesson_status,
    hits.file_path,
    hits.line_no,
    hits.session_id,
    hits.missed_at,
    hits.recall,
    hits.caught_by,
    hits.what,
    hits.week,
    case when miss_lines.miss_line is not null then sessions.transcript_file end
        as transcript_file,
    miss_lines.miss_line,
    recall_lines.recall_file,
    recall_lines.recall_line,
from hits
left join sessions using (session_id)
left join miss_lines using (base_path, file_path, line_no)
left join recall_lines using (base_path, file_path, line_no)
order by hits.base_path, hits.lesson_id, hits.line_no
