-- int_session_bases_linked: the bases of each session.
-- Grain: one row per (session_id, base_path).
-- key: session_id, base_path
-- incremental: session_id (rows depend on their own session only)
-- materialized: temp (read by several models in one build; the file keeps it as a view)
-- A session belongs to every base on the path from any working directory its lines (main
-- run and subagents) record, so a session that moves into a sub-project gains that base.
with

session_cwds as (
    select distinct
        session_id,
        cwd,
    from int_events_deduplicated
    where session_id is not null and cwd is not null
    union
    select distinct
        session_id,
        cwd,
    from int_tool_calls_deduplicated
    where session_id is not null and cwd is not null
),

links as (
    select *, from stg_cwd_bases
)

select distinct
    session_cwds.session_id,
    links.base_path,
from session_cwds
inner join links using (cwd)
