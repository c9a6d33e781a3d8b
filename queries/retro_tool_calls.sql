-- retro_tool_calls: failed, interrupted and rejected tool calls, for the interrupt,
-- rejection and repeated-failure detectors of `retro`.
-- Grain: one row per tool call that errored, was interrupted or was rejected.
-- transcript_file: the file of the calling run (fct_tool_calls.transcript_file holds the
-- call's own file argument in this build).
-- Parameters: $since (timestamp or null: calls at or after it), $bases (list of base
-- paths or null: sessions of those bases only).
with

calls as (
    select *, from fct_tool_calls
    where is_error or is_interrupt or is_rejected
),

runs as (
    select
        agent_run_id,
        file_path as run_file,
    from dim_agent_runs
),

in_scope as (
    select distinct session_id, from dim_session_scope
    where list_contains($bases, base_path)
),

selected as (
    select
        calls.session_id,
        agent_run_id,
        calls.runtime,
        tool_use_id,
        tool_name,
        command,
        file_path as target_path,
        called_at,
        result_at,
        is_error,
        exit_code,
        is_interrupt,
        is_rejected,
        result_head,
        input_json,
        coalesce(runs.run_file, calls.result_file) as transcript_file,
        call_line,
        result_file,
        result_line,
    from calls
    left join runs using (agent_run_id)
    where
        ($since is null or called_at >= $since)
        and ($bases is null or session_id in (select session_id, from in_scope))
)

select *, from selected
order by session_id, agent_run_id, called_at, call_line
