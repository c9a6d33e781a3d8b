-- stg_events: transcript lines as loaded, with their file's path and the run they belong to.
-- Grain: one row per loaded line (resume copies included; int_events_deduplicated drops them).
-- agent_key: the subagent's id, or 'main' for the main conversation.
-- incremental: session_id (an incremental refresh reads only the sessions it refreshes)
with

events as (
    select *, from raw_events
),

files as (
    select
        file_id,
        path as file_path,
    from raw_files
)

select
    events.*,
    files.file_path,
    coalesce(events.agent_id, 'main') as agent_key,
from events
left join files using (file_id)
