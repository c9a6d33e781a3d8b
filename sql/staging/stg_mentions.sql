-- stg_mentions: raw_mentions as loaded (resume copies included).
-- Grain: one row per raw_mentions row.
-- incremental: session_id (an incremental refresh reads only the sessions it refreshes)
select *, from raw_mentions
