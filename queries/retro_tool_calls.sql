-- retro_tool_calls: failed, interrupted and rejected tool calls, for the interrupt,
-- rejection and repeated-failure detectors of `retro`.
-- Grain: one row per tool call that errored, was interrupted or was rejected.
-- Parameters: $since (timestamp or null: calls at or after it), $bases (list of base
-- paths or null: sessions of those bases only).
with

calls as (
    select * from fct_tool_calls
    where is_error or is_interrupt or is_rejected
),

in_scope as (
    select distinct session_id from dim_session_bases
    where list_contains($bases, base_path)
),

selected as (
    select
        session_id,
        agent_run_id,
        runtime,
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
        transcript_file,
        call_line,
        result_file,
        result_line,
    from calls
    where ($since is null or called_at >= $since)
        and ($bases is null or session_id in (select session_id from in_scope))
)

select * from selected
order by session_id, agent_run_id, called_at, call_line
