-- fct_tool_calls: tool calls of kept agent runs, call and result paired.
-- Grain: one row per tool call.
-- key: tool_use_id
-- incremental: session_id (rows depend on their own session only)
with

calls as (
    select *, from int_tool_calls_paired
),

runs as (
    select agent_run_id, from dim_agent_runs
)

select calls.*,
from calls
inner join runs using (agent_run_id)
