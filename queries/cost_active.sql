-- cost_active: the session active time spent inside a ritual's calls (metrics.md §5), the
-- numerator of share_of_active_time.
-- Grain: one row.
-- Parameters: $call_ids (list of tool_use_id: the calls cost_calls matched), $bases, $since,
-- $until (session start, the sessions of cost_scope), $gap_cap_s (thresholds.gap_cap_s).
-- Choice: a gap between consecutive events of a session counts when both events lie within
-- one of the calls, from call to result; each gap once even when calls overlap, capped as
-- the active time is. So the share never exceeds 1: call durations (total_hours) are not
-- capped, and a runtime's own recorded duration need not fit the transcript's timeline.
with

sessions as (
    select distinct session_id, from dim_session_scope
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
),

calls as (
    select
        session_id,
        called_at,
        result_at,
    from fct_tool_calls
    where
        list_contains($call_ids, tool_use_id)
        and result_at is not null
),

gaps as (
    -- the stored gaps (fct_events.gap_s) of the sessions with a call: a session's gaps
    -- depend on its own events alone. gap_us: the gap in whole microseconds again (it
    -- was a date_diff in microseconds / 1e6, so rounding gives it back exactly)
    select
        events.session_id,
        events.ts,
        events.gap_s,
        cast(round(events.gap_s * 1e6) as bigint) as gap_us,
    from fct_events as events
    inner join sessions using (session_id)
    where
        events.gap_s is not null
        and events.session_id in (select calls.session_id, from calls)
),

timeline as (
    -- the calls' starts and the gaps' first events on one time line per session. A gap
    -- began gap_us before its event, at the session's previous timestamped event; the
    -- interval goes in hours, seconds and microseconds because DuckDB multiplies an
    -- interval by a 32-bit integer, too small for a gap's microseconds
    select
        session_id,
        called_at as at_time,
        result_at,
        null as ts,
        null as gap_s,
    from calls
    union all
    select
        session_id,
        ts
        - interval 1 hour * (gap_us // 3600000000)
        - interval 1 second * (gap_us // 1000000 % 3600)
        - interval 1 microsecond * (gap_us % 1000000) as at_time,
        null as result_at,
        ts,
        gap_s,
    from gaps
),

reach as (
    -- the latest result of the calls started by each instant (the range frame holds the
    -- peers: a call started at a gap's first event counts)
    select
        session_id,
        ts,
        gap_s,
        max(result_at) over (
            partition by session_id order by at_time
            range between unbounded preceding and current row
        ) as reach_at,
    from timeline
),

inside as (
    -- a gap lies inside a call when a call started by its first event reaches its
    -- second: one pass over the time line instead of testing every call of the session
    select gap_s,
    from reach
    where ts is not null and ts <= reach_at
)

select
    -- exact decimals: a sum of doubles depends on the order rows arrive in
    coalesce(sum(least(gap_s, $gap_cap_s)::decimal(18, 6)), 0)::double
        as active_seconds,
from inside
