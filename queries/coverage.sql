-- coverage: recall coverage per base (metrics.md §2).
-- Grain: one row per base with at least one session.
-- Parameters: $bases (list or null), $since, $until (session start; null = open).
-- Choices: a session is in scope of a base when the base has an active lesson (status as
-- the files stand now); coverage = sessions recalled / sessions in scope (null when none
-- are in scope); sessions_reading_index counts sessions in scope that read the index.
with

sessions as (
    select *, from fct_session_recall
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
)

select
    base_path,
    count(*) filter (where in_scope) as sessions_in_scope,
    count(*) filter (where in_scope and read_index) as sessions_reading_index,
    count(*) filter (where in_scope and recalled_any) as sessions_recalled,
    (count(*) filter (where in_scope and recalled_any))
    / nullif(count(*) filter (where in_scope), 0) as coverage,
    (count(*) filter (where in_scope and read_index))
    / nullif(count(*) filter (where in_scope), 0) as index_read_share,
from sessions
group by base_path
order by base_path
