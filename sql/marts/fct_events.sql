-- fct_events: every kept transcript line of a kept agent run (warm-ups dropped).
-- Grain: one row per transcript line. Usage and message ids live in fct_messages.
-- key: file_id, line_no
-- incremental: session_id (rows depend on their own session only)
with

events as (
    select *, from int_events_deduplicated
    where session_id is not null
),

runs as (
    select
        session_id,
        agent_key,
    from dim_agent_runs
)

select
    events.* exclude (
        message_id, request_id, model, input_tokens, output_tokens,
        cache_creation_tokens, cache_read_tokens, text_head
    ),
    events.session_id || '/' || events.agent_key as agent_run_id,
from events
inner join runs using (session_id, agent_key)
