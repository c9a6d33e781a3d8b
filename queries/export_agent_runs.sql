-- export_agent_runs: the main and subagent runs of the exported sessions, with the tool
-- call that spawned each subagent (when known).
-- Grain: one row per agent run.
-- Parameters: $sessions (list of session ids, from export_sessions).
select
    agent_run_id,
    session_id,
    agent_key,
    agent_id,
    is_main,
    runtime,
    started_at,
    ended_at,
    agent_type,
    spawned_by_tool_use_id,
from dim_agent_runs
where list_contains($sessions, session_id)
order by session_id asc, is_main desc, started_at asc nulls last, agent_run_id asc
