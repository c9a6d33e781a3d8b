-- dim_bases: the lesson bases the warehouse knows.
-- Grain: one row per base (absolute path of its LESSONS/ folder).
-- key: base_path
with

bases as (
    select *, from stg_bases
),

lessons as (
    select
        base_path,
        count(*) as lessons,
        count(*) filter (where status = 'active') as active_lessons,
        count(*) filter (where status = 'candidate') as candidate_lessons,
    from stg_lessons
    group by base_path
)

select
    bases.* exclude (fingerprint),
    coalesce(lessons.lessons, 0) as lessons,
    coalesce(lessons.active_lessons, 0) as active_lessons,
    coalesce(lessons.candidate_lessons, 0) as candidate_lessons,
from bases
left join lessons using (base_path)
