-- stg_tool_calls: raw_tool_calls as loaded (resume copies included).
-- Grain: one row per raw_tool_calls row.
-- incremental: session_id (an incremental refresh reads only the sessions it refreshes)
select *, from raw_tool_calls
