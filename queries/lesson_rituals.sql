-- lesson_rituals: the lessons that declare a ritual (a regex over commands), for the cost
-- of rituals.
-- Grain: one row per (base, lesson id), by base then id.
-- Parameters: $bases (list of base paths or null), $lesson (id or null: every lesson).
select
    base_path,
    lesson_id,
    ritual,
from dim_lessons
where
    ritual is not null
    and ($lesson is null or lesson_id = $lesson)
    and ($bases is null or list_contains($bases, base_path))
order by base_path, lesson_id
