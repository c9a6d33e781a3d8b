-- lessons: the lessons of the bases as their files stand now: status, class, rule, target,
-- triggers, ritual.
-- Grain: one row per (base, lesson id), by base then id.
-- Parameters: $bases (list of base paths or null: every base).
select
    base_path,
    lesson_id,
    status,
    lesson_class,
    rule,
    target,
    triggers,
    ritual,
from dim_lessons
where $bases is null or list_contains($bases, base_path)
order by base_path, lesson_id
