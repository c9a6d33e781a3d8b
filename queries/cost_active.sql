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

ids as (
    -- the ids as a table: a semi join on them hashes them once, where list_contains
    -- tested every call of the warehouse against the whole list
    select unnest($call_ids) as tool_use_id,
),

matched as (
    -- the calls of $call_ids, with the columns weighed below. metrics.ritual_calls puts
    -- the rows of queries/cost_calls.sql in place of ids and matched (the same calls:
    -- tool_use_id is fct_tool_calls' key), so DuckDB neither hands the ids to Python and
    -- back nor looks them up again
    select
        tool_use_id,
        session_id,
        called_at,
        result_at,
    from fct_tool_calls
    where tool_use_id in (select ids.tool_use_id, from ids)
),

calls as (
    -- the calls of the sessions in scope: the one join of the events below then keeps
    -- the gaps of these sessions alone (a gap lies inside a call of its own session), where
    -- joining the events to the sessions and to the calls' sessions first were two more
    -- passes over every event (cost '^git commit' on D: 880k events, 52k calls)
    select
        session_id,
        called_at,
        result_at,
    from matched
    where
        result_at is not null
        and session_id in (select sessions.session_id, from sessions)
),

inside as (
    -- the stored gaps (fct_events.gap_s): a session's gaps depend on its own events
    -- alone. A gap lies inside a call when one call of its session started by its first
    -- event (the gap before its second, at the session's previous timestamped event) and
    -- ended at or after its second; each gap once however many calls hold it (a semi
    -- join). The gap in whole microseconds again: it was a date_diff in microseconds / 1e6,
    -- so rounding gives it back exactly. The call is compared with the gap's second event
    -- first: a cheap test that leaves few pairs for the microseconds (an interval times a
    -- 32-bit integer, the other way to place the first event, is too small for a gap's
    -- microseconds). Both times as UTC wall clock: their microseconds apart are the same
    -- in any session zone, and a date_diff of two zoned times goes through the zone's
    -- calendar (ICU), twice the cost on the 100k pairs of cost '^git commit' on D
    select events.gap_s,
    from fct_events as events
    semi join calls
        on
            events.session_id = calls.session_id
            and events.ts <= calls.result_at
            and events.ts >= calls.called_at
            and date_diff(
                'microsecond', calls.called_at at time zone 'UTC', events.ts at time zone 'UTC'
            )
            >= cast(round(events.gap_s * 1e6) as bigint)
    where events.gap_s is not null
)

select
    -- exact decimals: a sum of doubles depends on the order rows arrive in
    coalesce(sum(least(gap_s, $gap_cap_s)::decimal(18, 6)), 0)::double
        as active_seconds,
from inside
