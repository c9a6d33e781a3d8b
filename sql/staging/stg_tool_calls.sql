-- stg_tool_calls: raw_tool_calls as loaded.
-- Grain: one row per raw_tool_calls row (resume copies included).
select * from raw_tool_calls
