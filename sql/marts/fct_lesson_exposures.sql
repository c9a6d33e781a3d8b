-- fct_lesson_exposures: the sessions each lesson was exposed to, before and after it
-- became active, with its hits and whether it was recalled (the input of `effect`).
-- Grain: one row per (base, lesson, session of the base); subagent runs belong to their
-- session, as everywhere.
-- key: base_path, lesson_id, session_id
-- incremental: session_id (a session's rows read its own links, hits and recalls, and the
-- lessons, which come from the bases alone)
-- period: 'before' (session started before activated_at, or the lesson was never active),
-- 'after' (started at or after activated_at and before deactivated_at), 'inactive' (started
-- after the lesson stopped being active: neither side).
-- is_hit: the session has at least one hit of the lesson (a journal line naming it).
-- is_recalled: for a session with a hit, at least one of its hits came after the lesson
-- was recalled (body read or id quoted, fct_hit_attribution); for a session without one,
-- the lesson was recalled at any time in it. Index rows alone are not recall.
with

lessons as (
    select *, from dim_lesson_activations
),

links as (
    select
        base_path,
        session_id,
    from dim_session_bases
),

sessions as (
    select
        session_id,
        started_at,
        ended_at,
    from fct_sessions
),

attributed as (
    select *, from fct_hit_attribution
    where session_found
),

hit_sessions as (
    select
        base_path,
        lesson_id,
        session_id,
        count(*) as hits,
        bool_or(recall = 'recalled') as is_recalled_hit,
    from attributed
    group by base_path, lesson_id, session_id
),

recalls as (
    select
        base_path,
        lesson_id,
        session_id,
        min(surfaced_at) as first_recall_at,
    from fct_recall_evidence
    where kind in ('body', 'quoted')
    group by base_path, lesson_id, session_id
)

select
    lessons.base_path,
    lessons.lesson_id,
    links.session_id,
    sessions.started_at,
    sessions.ended_at,
    strftime(sessions.started_at, '%G-W%V') as week,
    case
        when
            lessons.activated_at is null
            or sessions.started_at < lessons.activated_at then 'before'
        when
            lessons.deactivated_at is null
            or sessions.started_at < lessons.deactivated_at then 'after'
        else 'inactive'
    end as period,
    coalesce(hit_sessions.hits, 0) as hits,
    hit_sessions.session_id is not null as is_hit,
    case
        when hit_sessions.session_id is not null
            then hit_sessions.is_recalled_hit
        else recalls.session_id is not null
    end as is_recalled,
    recalls.first_recall_at,
from lessons
inner join links using (base_path)
inner join sessions using (session_id)
left join hit_sessions
    on
        lessons.base_path = hit_sessions.base_path
        and lessons.lesson_id = hit_sessions.lesson_id
        and links.session_id = hit_sessions.session_id
left join recalls
    on
        lessons.base_path = recalls.base_path
        and lessons.lesson_id = recalls.lesson_id
        and links.session_id = recalls.session_id
