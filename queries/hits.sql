-- hits: hit attribution per base (metrics.md §3).
-- Grain: one row per base with at least one hit.
-- Parameters: $bases, $since, $until (as in hits_list).
-- Choices: top3_share = hits of the three lessons with most hits / all hits; the largest
-- class share counts hits of lessons with a class over all hits of the base (lessons
-- without a class hold no class).
with

hits as (
    select *, from fct_hit_attribution
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or coalesce(missed_at, hit_date::timestamptz) >= $since)
        and ($until is null or coalesce(missed_at, hit_date::timestamptz) < $until)
),

per_lesson as (
    select
        base_path,
        lesson_id,
        count(*) as hits,
        row_number() over (partition by base_path order by count(*) desc, lesson_id) as rank,
    from hits
    group by base_path, lesson_id
),

per_class as (
    select
        base_path,
        lesson_class,
        count(*) as hits,
        row_number() over (partition by base_path order by count(*) desc, lesson_class) as rank,
    from hits
    where lesson_class is not null
    group by base_path, lesson_class
),

totals as (
    select
        base_path,
        count(*) as hits,
        count(*) filter (where recall = 'recalled') as recalled,
        count(*) filter (where recall = 'index_only') as index_only,
        count(*) filter (where recall = 'not_recalled') as not_recalled,
        count(*) filter (where recall = 'unknown') as unknown,
        count(*) filter (where session_found) as sessions_found,
        count(*) filter (where disagrees) as disagreements,
        count(distinct independence_key) as independent_hits,
    from hits
    group by base_path
)

select
    totals.*,
    (
        select sum(p.hits), from per_lesson as p
        where p.base_path = totals.base_path and p.rank <= 3
    )
    / totals.hits as top3_share,
    (
        select c.lesson_class, from per_class as c
        where c.base_path = totals.base_path and c.rank = 1)
        as max_class,
    (
        select c.hits, from per_class as c
        where c.base_path = totals.base_path and c.rank = 1
    )
    / totals.hits as max_class_share,
from totals
order by base_path
