-- fct_events: every kept transcript line of a kept agent run (warm-ups dropped).
-- Grain: one row per transcript line. Usage and message ids live in fct_messages.
-- key: file_id, line_no
-- incremental: session_id (rows depend on their own session only)
-- gap_s: seconds since the previous event with a timestamp of the same session (all its
-- runs together: the window is the session, so a refresh of one session recomputes it
-- whole); null for a session's first timestamped event and for an event without ts. Ties
-- on ts are ordered by the key, so which of two simultaneous events carries the gap and
-- which carries 0 is the same on every build. Stored uncapped: the gap cap is a setting
-- that every query applies with least(gap_s, $gap_cap_s), so the settings reach every
-- number without a rebuild, while the window runs once here instead of in each query.
with

events as (
    select *, from int_events_deduplicated
    where session_id is not null
),

runs as (
    select
        session_id,
        agent_key,
    from dim_agent_runs
),

-- the window sorts only the columns it needs, then joins back on the key: sorting every
-- column of every line with them was a quarter of this model's cost (D: 0.61 -> 0.43 CPU
-- s). It runs over the lines of kept runs, as it always did, and its join keeps only those
gaps as (
    select
        events.file_id,
        events.line_no,
        -- events without ts sort last, after every timestamped event, and their own gap
        -- is null (a difference with a null), so they neither have nor break a gap. The
        -- microseconds apart as a difference of epoch microseconds: a date_diff of two
        -- zoned times goes through the zone's calendar (ICU), 40 % of this window's cost
        (
            epoch_us(events.ts)
            - epoch_us(lag(events.ts) over (
                partition by events.session_id
                order by events.ts asc nulls last, events.file_id asc, events.line_no asc
            ))
        ) / 1e6 as gap_s,
    -- int_events_deduplicated read again rather than the events CTE: a CTE read twice is
    -- one DuckDB copies whole into a temporary result first
    from int_events_deduplicated as events
    semi join runs
        on
            events.session_id = runs.session_id
            and events.agent_key = runs.agent_key
    where events.session_id is not null
)

select
    events.* exclude (
        message_id, request_id, model, input_tokens, output_tokens,
        cache_creation_tokens, cache_read_tokens, text_head
    ),
    events.session_id || '/' || events.agent_key as agent_run_id,
    gaps.gap_s,
from events
inner join gaps on events.file_id = gaps.file_id and events.line_no = gaps.line_no
