-- stg_subagent_meta: raw_subagent_meta as loaded (resume copies included).
-- Grain: one row per raw_subagent_meta row.
-- incremental: session_id (an incremental refresh reads only the sessions it refreshes)
select *, from raw_subagent_meta
