-- hits_by_caught: hits per base, catcher and recall status (the recall x caught table).
-- Grain: one row per (base, caught, recall). Parameters: $bases, $since, $until.
select
    base_path,
    caught_by as caught,
    recall,
    count(*) as hits,
from fct_hit_attribution
where
    ($bases is null or list_contains($bases, base_path))
    and ($since is null or coalesce(missed_at, hit_date::timestamptz) >= $since)
    and ($until is null or coalesce(missed_at, hit_date::timestamptz) < $until)
group by base_path, caught_by, recall
order by base_path, caught_by, recall
