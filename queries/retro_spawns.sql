-- retro_spawns: subagent spawns (Task / Agent calls) with the spawned run and its
-- result, for the gate-rejection detector of `retro`.
-- Grain: one row per spawning tool call.
-- last_agent_file / last_agent_line: the spawned run's last assistant line (its final
-- answer, when the call's result is missing). transcript_file: the calling run's file.
-- session_ended_at: the session's last event.
-- Parameters: $since (timestamp or null: calls at or after it), $bases (list of base
-- paths or null: sessions of those bases only).
with

calls as (
    select *, from fct_tool_calls
),

runs as (
    select *, from dim_agent_runs
    where not is_main
),

last_agent as (
    select
        agent_run_id,
        arg_max(file_path, (line_no, file_path)) as last_agent_file,
        max(line_no) as last_agent_line,
    from fct_events
    where role = 'assistant'
    group by agent_run_id
),

session_ends as (
    select
        session_id,
        max(ts) as session_ended_at,
    from fct_events
    group by session_id
),

in_scope as (
    select distinct session_id, from dim_session_scope
    where list_contains($bases, base_path)
),

spawns as (
    select
        calls.session_id,
        calls.agent_run_id,
        calls.tool_use_id,
        calls.tool_name,
        calls.called_at,
        calls.result_at,
        calls.result_head,
        calls.input_json,
        coalesce(callers.file_path, calls.result_file) as transcript_file,
        calls.call_line,
        calls.result_file,
        calls.result_line,
        runs.agent_run_id as spawned_run_id,
        runs.agent_type,
        runs.description,
        runs.ended_at as spawned_ended_at,
        last_agent.last_agent_file,
        last_agent.last_agent_line,
        session_ends.session_ended_at,
    from calls
    left join dim_agent_runs as callers on calls.agent_run_id = callers.agent_run_id
    left join runs on calls.tool_use_id = runs.spawned_by_tool_use_id
    left join last_agent on runs.agent_run_id = last_agent.agent_run_id
    left join session_ends on calls.session_id = session_ends.session_id
    where
        (calls.tool_name in ('Task', 'Agent') or runs.agent_run_id is not null)
        and ($since is null or calls.called_at >= $since)
        and ($bases is null or calls.session_id in (select session_id, from in_scope))
)

select *, from spawns
order by session_id, called_at, call_line
