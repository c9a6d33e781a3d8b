-- stg_mentions: raw_mentions as loaded (resume copies included).
-- Grain: one row per raw_mentions row.
-- During an incremental refresh only the sessions being refreshed pass (meta_build_scope).
select *
from raw_mentions
where (select all_sessions from meta_build_scope)
    or session_id in (select session_id from meta_build_sessions)
