-- stg_tool_results: raw_tool_results as loaded.
-- Grain: one row per raw_tool_results row (resume copies included).
select * from raw_tool_results
