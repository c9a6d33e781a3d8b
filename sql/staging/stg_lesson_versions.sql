-- stg_lesson_versions: raw_lesson_versions as loaded (renamed only where a name would clash).
-- Grain: one row per raw_lesson_versions row.
select *, from raw_lesson_versions
