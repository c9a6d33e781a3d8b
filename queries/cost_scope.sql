-- cost_scope: the sessions ritual time is measured against: their count, ISO weeks and
-- active time (metrics.md §5), with the default 300 s gap cap stored in fct_sessions.
-- Grain: one row.
-- Parameters: $bases (null = every session), $since, $until (session start). For another
-- gap cap, cost_scope_recapped recomputes the active time from the events.
-- weeks: ISO weeks from the first to the last week of these sessions, inclusive.
with

sessions as (
    select * from fct_sessions
    where ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
        and ($bases is null or exists (
            select 1 from dim_session_bases links
            where links.session_id = fct_sessions.session_id
                and list_contains($bases, links.base_path)
        ))
)

select
    count(*) as sessions,
    min(started_at) as first_at,
    max(started_at) as last_at,
    date_diff('day', date_trunc('week', min(started_at)),
        date_trunc('week', max(started_at))) // 7 + 1 as weeks,
    -- exact decimals: a sum of doubles depends on the order rows arrive in
    coalesce(sum(active_seconds::decimal(18, 6)), 0)::double as active_seconds,
from sessions
