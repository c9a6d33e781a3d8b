-- sign_lessons: the lessons of the bases as the sleep signs of `stats` weigh them (status,
-- class, birth, last commit, sizes, `helped`), as their files stood at the last ingest.
-- Grain: one row per lesson of the bases, in file-name order (the order `stats` lists them).
-- Parameters: $bases (the LESSONS paths of the bases weighed; `stats` gives one).
with

lessons as (
    select *, from dim_lessons
    where list_contains($bases, base_path)
)

select
    base_path,
    lesson_id,
    file_path,
    status,
    lesson_class,
    created,
    first_commit_at,
    last_commit_at,
    evidence_helped,
    body_bytes,
    journal_bytes,
from lessons
order by base_path, file_path, lesson_id
