-- int_agent_runs_identified: a session's main conversation and each subagent run in it.
-- Grain: one row per (session_id, agent_key); agent_key is 'main' for the main run.
-- key: session_id, agent_key
-- incremental: session_id (rows depend on their own session only)
-- Warm-ups (Claude Code 2.0.x starts one or two agents that never execute anything) are
-- flagged here and dropped from every mart. A run is a warm-up when
--   1. its first user message is literally "Warmup" (any run), or, for a subagent run,
--   2. it has tool results and every one is literally "Warmup": the harness answered its
--      calls without running them, or
--   3. it shares a transcript file with a warm-up run of the same agent: warm-up files go
--      on under later session ids with no user text, and every part of them is dropped
--      (the file's sessions are refreshed together, so the rule stays per session), or
--   4. it has no user line, no tool call and no tool result, and nothing in its session
--      spawned it (no sidecar, no Task/Agent result naming it): 2.0.5x writes a warm-up's
--      one-line reply without the "Warmup" prompt. A spawned run that only answered in text
--      is kept.
-- first_user_text and cwd are the first by time, ties broken by file and line, so two
-- builds of the same rows agree.
with

events as (
    select *, from int_events_deduplicated
    where session_id is not null
),

results as (
    select
        session_id,
        coalesce(agent_id, 'main') as agent_key,
        trim(text_head) = 'Warmup' and result_chars < 20 as is_warmup_text,
    from int_tool_results_deduplicated
    where session_id is not null
),

spawns as (
    select
        session_id,
        agent_id as agent_key,
    from stg_subagent_meta
    where tool_use_id is not null
    union
    select
        session_id,
        spawned_agent_id,
    from stg_tool_results
    where spawned_agent_id is not null
),

first_user as (
    select
        session_id,
        agent_key,
        arg_min(text_head, (ts, file_path, line_no)) filter (
            where ts is not null
        ) as first_user_text,
    from events
    where role = 'user' and text_head is not null
    group by session_id, agent_key
),

runs as (
    select
        session_id,
        agent_key,
        min(agent_id) as agent_id,
        min(runtime) as runtime,
        min(ts) as started_at,
        max(ts) as ended_at,
        count(*) as events,
        -- the first recorded cwd; bare-era Codex lines have no timestamps, so line order
        coalesce(
            arg_min(cwd, (ts, file_path, line_no)) filter (
                where cwd is not null and ts is not null
            ),
            arg_min(cwd, (line_no, file_path)) filter (where cwd is not null)
        ) as cwd,
        min(file_path) as file_path,
        bool_or(is_sidechain) as is_sidechain,
        count(*) filter (where role = 'user') as user_lines,
        sum(coalesce(tool_uses, 0)) as tool_uses,
    from events
    group by session_id, agent_key
),

result_counts as (
    select
        session_id,
        agent_key,
        count(*) as results,
        bool_and(is_warmup_text) as all_warmup,
    from results
    group by session_id, agent_key
),

direct as (
    select
        runs.session_id,
        runs.agent_key,
        coalesce(trim(first_user.first_user_text) = 'Warmup', false)
        or runs.agent_key <> 'main' and (
            coalesce(result_counts.all_warmup, false)
            or (
                runs.user_lines = 0
                and runs.tool_uses = 0
                and result_counts.results is null
                and spawns.agent_key is null
            )
        ) as is_warmup,
    from runs
    left join first_user using (session_id, agent_key)
    left join result_counts using (session_id, agent_key)
    left join spawns using (session_id, agent_key)
),

run_files as (
    select distinct
        session_id,
        agent_key,
        file_path,
    from events
    where agent_key <> 'main'
),

warmup_files as (
    select distinct
        run_files.agent_key,
        run_files.file_path,
    from run_files
    inner join direct using (session_id, agent_key)
    where direct.is_warmup
),

spread as (
    select distinct
        run_files.session_id,
        run_files.agent_key,
    from run_files
    inner join warmup_files using (agent_key, file_path)
)

select
    runs.* exclude (user_lines, tool_uses),
    runs.session_id || '/' || runs.agent_key as agent_run_id,
    runs.agent_key = 'main' as is_main,
    direct.is_warmup or spread.agent_key is not null as is_warmup,
    first_user.first_user_text,
from runs
inner join direct using (session_id, agent_key)
left join first_user using (session_id, agent_key)
left join spread using (session_id, agent_key)
