-- dim_lessons: lessons as their files stand now.
-- Grain: one row per (base, lesson id).
select * from stg_lessons
