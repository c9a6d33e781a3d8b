-- report_evidence_sessions: the sessions behind recall coverage, each with the transcript
-- line that makes it count (the report's evidence lists).
-- Grain: one row per (base, session) in scope of the base.
-- Parameters: $bases (list or null), $since, $until (session start, as in `coverage`).
-- Choices: recall_file/recall_line is the earliest surfacing (body or quoted id, as in
-- fct_session_recall) of an active lesson of the base in the session, subagents included; index_file/index_line its earliest index read; a
-- session that recalled nothing or read no index has nulls there.
with

sessions as (
    select * from fct_session_recall
    where in_scope
        and ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
),

recalls as (
    select
        base_path,
        session_id,
        arg_min(transcript_file, surfaced_at) as recall_file,
        arg_min(transcript_line, surfaced_at) as recall_line,
        arg_min(lesson_id, surfaced_at) as recall_lesson,
    from fct_recall_evidence
    inner join dim_lessons using (base_path, lesson_id)
    where kind in ('body', 'quoted') and dim_lessons.status = 'active'
    group by base_path, session_id
),

index_reads as (
    select
        base_path,
        session_id,
        arg_min(transcript_file, called_at) as index_file,
        arg_min(call_line, called_at) as index_line,
    from fct_index_reads
    group by base_path, session_id
),

joined as (
    select
        sessions.base_path,
        sessions.session_id,
        sessions.started_at,
        sessions.read_index,
        sessions.recalled_any,
        fct_sessions.file_path as transcript_file,
        recalls.recall_lesson,
        recalls.recall_file,
        recalls.recall_line,
        index_reads.index_file,
        index_reads.index_line,
    from sessions
    left join fct_sessions using (session_id)
    left join recalls using (base_path, session_id)
    left join index_reads using (base_path, session_id)
)

select * from joined
order by base_path, started_at, session_id
