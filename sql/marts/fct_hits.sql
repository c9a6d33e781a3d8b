-- fct_hits: hit journal lines; is_hit is false for `defect: form-only` / `none` lines and
-- for lines that do not parse.
-- Grain: one row per journal line.
-- key: file_path, line_no
-- incremental: session_id (a line's row reads only the session it names; a line naming
-- none depends on the bases alone, which an incremental run leaves as they were)
-- missed_at: the line's ts, else the end of the named session (null when unknown).
with

hits as (
    select *, from stg_hits
),

sessions as (
    select
        session_id,
        ended_at,
    from fct_sessions
),

lessons as (
    select
        base_path,
        lesson_id,
        status,
        lesson_class,
    from stg_lessons
)

select
    hits.*,
    lessons.status as lesson_status,
    lessons.lesson_class,
    sessions.session_id is not null as session_found,
    coalesce(hits.ts, sessions.ended_at) as missed_at,
from hits
left join sessions using (session_id)
left join lessons using (base_path, lesson_id)
