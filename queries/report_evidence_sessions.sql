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
    -- the earliest surfacing; ties broken by transcript line, then lesson (one total order:
    -- all three columns come from the same row)
    select
        base_path,
        session_id,
        transcript_file as recall_file,
        transcript_line as recall_line,
        lesson_id as recall_lesson,
    from (
        select
            fct_recall_evidence.base_path,
            fct_recall_evidence.session_id,
            fct_recall_evidence.transcript_file,
            fct_recall_evidence.transcript_line,
            fct_recall_evidence.lesson_id,
            row_number() over (
                partition by fct_recall_evidence.base_path, fct_recall_evidence.session_id
                order by
                    fct_recall_evidence.surfaced_at,
                    fct_recall_evidence.transcript_file,
                    fct_recall_evidence.transcript_line,
                    fct_recall_evidence.lesson_id
            ) as pick,
        from fct_recall_evidence
        inner join dim_lessons
            on fct_recall_evidence.base_path = dim_lessons.base_path
            and fct_recall_evidence.lesson_id = dim_lessons.lesson_id
        where fct_recall_evidence.kind in ('body', 'quoted') and dim_lessons.status = 'active'
    ) as ranked
    where pick = 1
),

index_reads as (
    select base_path, session_id, transcript_file as index_file, call_line as index_line,
    from (
        select
            base_path,
            session_id,
            transcript_file,
            call_line,
            row_number() over (
                partition by base_path, session_id
                order by called_at, transcript_file, call_line
            ) as pick,
        from fct_index_reads
    ) as ranked
    where pick = 1
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
