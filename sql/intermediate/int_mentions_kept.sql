-- int_mentions_kept: a lesson id seen in a tool result, a user message or a system/hook message.
-- Grain: one row per (kept line, lesson id, tool_use_id).
-- key: file_id, line_no, lesson_id, tool_use_id (nullable)
-- materialized: view (read by few models; recomputing is cheaper than storing a copy)
with

mentions as (
    select *, from stg_mentions
),

kept_lines as (
    select
        file_id,
        line_no,
        agent_key,
        file_path,
    from int_events_deduplicated
)

select distinct
    mentions.*,
    kept_lines.agent_key,
    kept_lines.file_path,
from mentions
inner join kept_lines using (file_id, line_no)
