-- effect_cost_weeks: the ISO weeks each base's sessions span, the divisor of the ritual
-- hours and body tokens a week that the effect verdict weighs.
-- Grain: one row per base with at least one session in the window.
-- Parameters: $bases, $since, $until (on session starts).
-- weeks: as cost_scope counts them for the sessions of one base (first to last ISO week,
-- inclusive), for every base at once and without cost_scope's active time, which the
-- verdict does not use (it cost effect 0.1 CPU s per lesson with a ritual on D).
with

sessions as (
    select
        base_path,
        session_id,
        started_at,
    from dim_session_scope
    where
        base_path is not null
        and ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
)

select
    base_path,
    date_diff(
        'day', date_trunc('week', min(started_at)),
        date_trunc('week', max(started_at))
    ) // 7 + 1 as weeks,
from sessions
group by base_path
order by base_path
