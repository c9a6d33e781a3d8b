-- coverage_by_week: recall coverage per base and ISO week of the session's start (UTC).
-- Grain: one row per (base, week) with at least one session in scope.
-- Parameters: $bases, $since, $until.
select
    base_path,
    week,
    count(*) as sessions_in_scope,
    count(*) filter (where read_index) as sessions_reading_index,
    count(*) filter (where recalled_any) as sessions_recalled,
    (count(*) filter (where recalled_any)) / count(*) as coverage,
from fct_session_recall
where
    in_scope
    and ($bases is null or list_contains($bases, base_path))
    and ($since is null or started_at >= $since)
    and ($until is null or started_at < $until)
group by base_path, week
order by base_path, week
