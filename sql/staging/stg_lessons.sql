-- stg_lessons: raw_lessons as loaded (renamed only where a name would clash).
-- Grain: one row per raw_lessons row.
select *, from raw_lessons
