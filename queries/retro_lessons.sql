-- retro_lessons: lessons that a retro cluster may be a facet of (every status but
-- retired), with their trigger keywords and target.
-- Grain: one row per (base, lesson id).
-- Parameters: $bases (list of base paths or null: every base).
with

lessons as (
    select *, from dim_lessons
    where coalesce(status, '') <> 'retired'
)

select
    base_path,
    lesson_id,
    status,
    triggers,
    target,
    lesson_class,
    file_path,
from lessons
where $bases is null or list_contains($bases, base_path)
order by base_path, lesson_id
