-- stg_read_texts: raw_read_texts as loaded.
-- Grain: one row per raw_read_texts row (resume copies included).
select *, from raw_read_texts
