-- dim_lessons: lessons as their files stand now.
-- Grain: one row per (base, lesson id).
-- key: base_path, lesson_id
select *, from stg_lessons
