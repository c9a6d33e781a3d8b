-- dim_agent_runs: main and subagent runs (warm-ups dropped), linked to the spawning call.
-- Grain: one row per agent run (session_id, agent_key).
-- key: session_id, agent_key
-- incremental: session_id (rows depend on their own session only)
-- Links, most reliable first: the sidecar's toolUseId, the Task/Agent result's agentId
-- (structured or the `agentId:` text tail), and for inline sidechains the spawning call
-- whose prompt equals the run's first user message.
with

runs as (
    select *, from int_agent_runs_identified
    where not is_warmup
),

meta as (
    select
        session_id,
        agent_id,
        arg_min(agent_type, path) as agent_type,
        arg_min(description, path) as description,
        arg_min(tool_use_id, path) as meta_tool_use_id,
    from stg_subagent_meta
    group by session_id, agent_id
),

by_result as (
    select
        session_id,
        spawned_agent_id as agent_id,
        min(tool_use_id) as result_tool_use_id,
    from int_tool_calls_paired
    where spawned_agent_id is not null
    group by session_id, spawned_agent_id
),

by_prompt as (
    select
        session_id,
        prompt_hash,
        min(tool_use_id) as prompt_tool_use_id,
    from int_tool_calls_paired
    where prompt_hash is not null
    group by session_id, prompt_hash
)

select
    runs.agent_run_id,
    runs.session_id,
    runs.agent_key,
    runs.agent_id,
    runs.is_main,
    runs.runtime,
    runs.started_at,
    runs.ended_at,
    runs.events,
    runs.cwd,
    runs.file_path,
    meta.agent_type,
    meta.description,
    case when runs.is_main then null else coalesce(
        meta.meta_tool_use_id, by_result.result_tool_use_id, by_prompt.prompt_tool_use_id
    ) end as spawned_by_tool_use_id,
from runs
left join meta on runs.session_id = meta.session_id and runs.agent_id = meta.agent_id
left join by_result on runs.session_id = by_result.session_id and runs.agent_id = by_result.agent_id
left join by_prompt
    on
        runs.session_id = by_prompt.session_id
        and not runs.is_main
        and by_prompt.prompt_hash = md5(left(trim(runs.first_user_text, E' \n\t\r'), 200))
