-- export_sessions: the sessions an export covers (OpenTelemetry traces, OCEL session
-- objects); the other export_* queries take their ids as their `sessions` list.
-- Grain: one row per session.
-- Parameters: $bases (list of base paths or null: only sessions linked to one of them),
-- $since, $until (session start, since inclusive, until exclusive).
-- A session whose start is unknown is kept when no time bound is given; the exporters
-- count it and leave it out of formats that need a time.
with

sessions as (
    select *, from fct_sessions
),

in_scope as (
    select distinct session_id, from dim_session_scope
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
)

select
    session_id,
    runtime,
    started_at,
    ended_at,
    agent_runs,
    subagent_runs,
    active_seconds,
    cwd,
from sessions
where session_id in (select session_id, from in_scope)
order by started_at nulls last, session_id
