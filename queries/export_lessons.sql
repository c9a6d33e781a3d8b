-- export_lessons: the lessons of the exported bases as their files stand now.
-- Grain: one row per (base, lesson id).
-- Parameters: $bases (list of base paths or null: every base).
select
    base_path,
    lesson_id,
    file_path,
    status,
    lesson_class,
    created,
    first_commit_at,
    last_commit_at,
from dim_lessons
where $bases is null or list_contains($bases, base_path)
order by base_path, lesson_id
