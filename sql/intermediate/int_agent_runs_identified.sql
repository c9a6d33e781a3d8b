-- int_agent_runs_identified: a session's main conversation and each subagent run in it.
-- Grain: one row per (session_id, agent_key); agent_key is 'main' for the main run.
-- incremental: session_id (rows depend on their own session only)
-- A run whose first user message is literally "Warmup" is a 2.0.x warm-up agent: flagged
-- here and dropped from every mart.
with

events as (
    select * from int_events_deduplicated where session_id is not null
),

first_user as (
    select
        session_id,
        agent_key,
        arg_min(text_head, ts) as first_user_text,
    from events
    where role = 'user' and text_head is not null
    group by session_id, agent_key
),

runs as (
    select
        session_id,
        agent_key,
        any_value(agent_id) as agent_id,
        any_value(runtime) as runtime,
        min(ts) as started_at,
        max(ts) as ended_at,
        count(*) as events,
        -- the first recorded cwd; bare-era Codex lines have no timestamps, so line order
        coalesce(
            arg_min(cwd, ts) filter (where cwd is not null),
            arg_min(cwd, line_no) filter (where cwd is not null)
        ) as cwd,
        min(file_path) as file_path,
        bool_or(is_sidechain) as is_sidechain,
    from events
    group by session_id, agent_key
)

select
    runs.*,
    runs.session_id || '/' || runs.agent_key as agent_run_id,
    runs.agent_key = 'main' as is_main,
    coalesce(trim(first_user.first_user_text) = 'Warmup', false) as is_warmup,
    first_user.first_user_text,
from runs
left join first_user using (session_id, agent_key)
