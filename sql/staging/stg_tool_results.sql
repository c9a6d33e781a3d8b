-- stg_tool_results: raw_tool_results as loaded (resume copies included).
-- Grain: one row per raw_tool_results row.
-- During an incremental refresh only the sessions being refreshed pass (meta_build_scope).
select *
from raw_tool_results
where (select all_sessions from meta_build_scope)
    or session_id in (select session_id from meta_build_sessions)
