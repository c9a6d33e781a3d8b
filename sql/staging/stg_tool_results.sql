-- stg_tool_results: raw_tool_results as loaded (resume copies included).
-- Grain: one row per raw_tool_results row.
-- incremental: session_id (an incremental refresh reads only the sessions it refreshes)
select *, from raw_tool_results
