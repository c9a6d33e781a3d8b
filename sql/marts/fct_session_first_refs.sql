-- fct_session_first_refs: the transcript lines that first put a base in front of a session,
-- for the evidence lists of the report and of `effect` (report_evidence_sessions,
-- effect_interventions).
-- Grain: one row per (base, session) that recalled an active lesson of the base or read its
-- index.
-- key: base_path, session_id
-- incremental: session_id (rows depend on their own session only)
-- recall_file/recall_line/recall_lesson: the earliest surfacing (body read or quoted id, as
-- in fct_session_recall) of a lesson of the base that is active now, subagents included;
-- index_file/index_line: the earliest read of its INDEX.md. Ties are broken by transcript
-- line, then lesson, so every column of a pick comes from one row. Null when none.
with

recalls as (
    select
        base_path,
        session_id,
        recall_file,
        recall_line,
        recall_lesson,
    from (
        select
            evidence.base_path,
            evidence.session_id,
            evidence.transcript_file as recall_file,
            evidence.transcript_line as recall_line,
            evidence.lesson_id as recall_lesson,
            row_number() over (
                partition by evidence.base_path, evidence.session_id
                order by
                    evidence.surfaced_at,
                    evidence.transcript_file,
                    evidence.transcript_line,
                    evidence.lesson_id
            ) as pick,
        from fct_recall_evidence as evidence
        inner join dim_lessons as lessons
            on
                evidence.base_path = lessons.base_path
                and evidence.lesson_id = lessons.lesson_id
        where evidence.kind in ('body', 'quoted') and lessons.status = 'active'
    ) as ranked
    where pick = 1
),

index_reads as (
    select
        base_path,
        session_id,
        transcript_file as index_file,
        call_line as index_line,
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
)

select
    coalesce(recalls.base_path, index_reads.base_path) as base_path,
    coalesce(recalls.session_id, index_reads.session_id) as session_id,
    recalls.recall_file,
    recalls.recall_line,
    recalls.recall_lesson,
    index_reads.index_file,
    index_reads.index_line,
from recalls
full outer join index_reads
    on
        recalls.base_path = index_reads.base_path
        and recalls.session_id = index_reads.session_id
