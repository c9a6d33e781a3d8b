-- cost_scope: the sessions ritual time is measured against: their count, ISO weeks and
-- active time (metrics.md §5) with the gap cap of the settings.
-- Grain: one row.
-- Parameters: $bases (null = every session), $since, $until (session start), $gap_cap_s
-- (seconds an idle gap counts at most: the setting thresholds.gap_cap_s, or `cost --gap-cap`;
-- bound by the caller, no default here).
-- active_seconds: sum of the gaps between consecutive events of each session, each gap
-- capped at $gap_cap_s; a session's first event has no gap. Choice: summed from the
-- uncapped gaps stored in fct_events.gap_s on every call rather than read from
-- fct_sessions.active_seconds, which is stored at the spec's fixed cap for the exports
-- (see its header), so the settings reach every number without a rebuild.
-- weeks: ISO weeks from the first to the last week of these sessions, inclusive.
with

sessions as (
    select distinct
        session_id,
        started_at,
    from dim_session_scope
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
),

gaps as (
    select events.gap_s,
    from fct_events as events
    inner join sessions using (session_id)
    where events.gap_s is not null
)

select
    (select count(*), from sessions) as sessions,
    (select min(started_at), from sessions) as first_at,
    (select max(started_at), from sessions) as last_at,
    (select date_diff(
        'day', date_trunc('week', min(started_at)),
        date_trunc('week', max(started_at))
    ) // 7 + 1, from sessions) as weeks,
    -- exact decimals: a sum of doubles depends on the order rows arrive in
    coalesce((
        select sum(least(gap_s, $gap_cap_s)::decimal(18, 6)),
        from gaps
        where gap_s is not null
    ), 0)::double
        as active_seconds,
