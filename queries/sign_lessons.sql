-- sign_lessons: the lessons of one base as the sleep signs of `stats` weigh them (status,
-- class, birth, last commit, sizes, `helped`), as their files stood at the last ingest.
-- Grain: one row per lesson of the base, in file-name order (the order `stats` lists them).
-- Parameters: $base (the base's LESSONS path).
with

lessons as (
    select * from dim_lessons
    where base_path = $base
)

select
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
order by file_path, lesson_id
