-- stg_subagent_meta: raw_subagent_meta as loaded (resume copies included).
-- Grain: one row per raw_subagent_meta row.
-- During an incremental refresh only the sessions being refreshed pass (meta_build_scope).
select *
from raw_subagent_meta
where (select all_sessions from meta_build_scope)
    or session_id in (select session_id from meta_build_sessions)
