-- fct_session_recall: for each session and each of its bases, whether the session read the
-- index and recalled an active lesson (metrics.md §2).
-- Grain: one row per (session, base).
-- key: session_id, base_path
-- incremental: session_id (rows depend on their own session only)
-- in_scope: the base has at least one lesson whose status is `active` (as the lesson files
-- stand now). recalled_any: the session (subagents included) read the body of one of those
-- lessons or received its id in a tool result, a user or a system/hook message; an index
-- row alone is not recall. week: ISO week (UTC) of the session's start.
with

links as (
    select *, from dim_session_bases
),

sessions as (
    select
        session_id,
        started_at,
        ended_at,
        runtime,
    from fct_sessions
),

active_lessons as (
    select
        base_path,
        lesson_id,
    from dim_lessons
    where status = 'active'
),

active_bases as (
    select
        base_path,
        count(*) as active_lessons,
    from active_lessons
    group by base_path
),

recalls as (
    select
        evidence.base_path,
        evidence.session_id,
        count(distinct evidence.lesson_id) as lessons_recalled,
        min(evidence.surfaced_at) as first_recall_at,
    from fct_recall_evidence as evidence
    inner join active_lessons using (base_path, lesson_id)
    where evidence.kind in ('body', 'quoted')
    group by evidence.base_path, evidence.session_id
),

index_readers as (
    select distinct
        base_path,
        session_id,
    from fct_index_reads
)

select
    links.session_id,
    links.base_path,
    sessions.runtime,
    sessions.started_at,
    strftime(sessions.started_at, '%G-W%V') as week,
    coalesce(active_bases.active_lessons, 0) > 0 as in_scope,
    index_readers.session_id is not null as read_index,
    recalls.session_id is not null as recalled_any,
    coalesce(recalls.lessons_recalled, 0) as lessons_recalled,
    recalls.first_recall_at,
from links
inner join sessions using (session_id)
left join active_bases using (base_path)
left join recalls using (base_path, session_id)
left join index_readers using (base_path, session_id)
