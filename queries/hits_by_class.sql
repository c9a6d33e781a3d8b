-- hits_by_class: hits per base and lesson class, with the share of the base's hits.
-- Grain: one row per (base, class); lessons without a class are grouped under null.
-- Parameters: $bases, $since, $until.
select
    base_path,
    lesson_class,
    count(*) as hits,
    count(*) / sum(count(*)) over (partition by base_path) as share,
from fct_hit_attribution
where
    ($bases is null or list_contains($bases, base_path))
    and ($since is null or coalesce(missed_at, hit_date::timestamptz) >= $since)
    and ($until is null or coalesce(missed_at, hit_date::timestamptz) < $until)
group by base_path, lesson_class
order by base_path asc, hits desc, lesson_class asc
