-- fct_sessions: one top-level conversation with all its agent runs.
-- Grain: one row per session.
-- key: session_id
-- incremental: session_id (rows depend on their own session only)
-- active_seconds: the sum of the gaps between consecutive timestamped events of the session
-- (all its runs together), each gap capped at 300 s: the cap metrics.md §5 names, fixed here
-- and not the setting thresholds.gap_cap_s. Choice: this stored value is part of the export
-- contract (Parquet, OTel, OCEL), which must mean the same on every machine whatever its
-- settings, and a settings change must not force a full rebuild. Every number the CLI and
-- the report show with a gap cap (`cost`, share of active time) is computed by
-- queries/cost_scope.sql from the events with the setting bound as $gap_cap_s.
with

gaps as (
    -- the gaps fct_events stores (its gap_s: the same consecutive timestamped events)
    select
        session_id,
        gap_s,
    from fct_events
),

active as (
    -- a session's first event has no gap (null); least() would turn it into the cap.
    -- Summed as exact decimals: a sum of doubles depends on the order rows arrive in
    select
        session_id,
        coalesce(
            sum(least(gap_s, 300)::decimal(18, 6)) filter (where gap_s is not null), 0
        )::double as active_seconds,
    from gaps
    where gap_s is not null
    group by session_id
),

runs as (
    select
        session_id,
        min(runtime) as runtime,
        min(started_at) as started_at,
        max(ended_at) as ended_at,
        count(*) as agent_runs,
        count(*) filter (where not is_main) as subagent_runs,
        -- one main run per session; the key breaks ties all the same
        arg_min(cwd, (started_at, agent_run_id))
        filter (where is_main and started_at is not null) as cwd,
        arg_min(file_path, (started_at, agent_run_id))
        filter (where is_main and started_at is not null) as file_path,
    from dim_agent_runs
    group by session_id
)

select
    runs.*,
    coalesce(active.active_seconds, 0) as active_seconds,
from runs
left join active using (session_id)
