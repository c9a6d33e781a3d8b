-- stg_mentions: raw_mentions as loaded.
-- Grain: one row per raw_mentions row (resume copies included).
select * from raw_mentions
