-- hits_by_lesson: hits per lesson by recall status, with independent cases.
-- Grain: one row per (base, lesson) with at least one hit. Parameters: $bases, $since,
-- $until. independent: distinct sessions, each hit without a session counting as one.
select
    base_path,
    lesson_id,
    min(lesson_class) as lesson_class,
    min(lesson_status) as status,
    count(*) as hits,
    count(distinct independence_key) as independent,
    count(*) filter (where recall = 'recalled') as recalled,
    count(*) filter (where recall = 'index_only') as index_only,
    count(*) filter (where recall = 'not_recalled') as not_recalled,
    count(*) filter (where recall = 'unknown') as unknown,
    count(*) filter (where disagrees) as disagreements,
from fct_hit_attribution
where
    ($bases is null or list_contains($bases, base_path))
    and ($since is null or coalesce(missed_at, hit_date::timestamptz) >= $since)
    and ($until is null or coalesce(missed_at, hit_date::timestamptz) < $until)
group by base_path, lesson_id
order by base_path asc, hits desc, lesson_id asc
