-- dim_session_scope: the sessions a read over bases and a span of session starts covers.
-- Grain: one row per (session, base) of a session linked to a base, and one row with a
-- null base_path for a session linked to none.
-- key: session_id, base_path (nullable)
-- materialized: view (a join of two small marts; a copy would only have to be kept in step)
-- Purpose: the one home of the session scope the queries share. A query keeps the sessions
-- it covers with the same three conditions as every other mart it filters:
--     ($bases is null or list_contains($bases, base_path))
--     and ($since is null or started_at >= $since)
--     and ($until is null or started_at < $until)
-- and takes `distinct session_id` when it counts sessions rather than (session, base)
-- pairs. A session without a base is selected only while $bases is null (list_contains
-- of a null is null); a query of base rows only adds `base_path is not null`.
-- Choice: a view, not DuckDB macros. A table macro would take the parameters itself, but
-- macros do not exist on Spark, and tests/test_spark_differential.py runs every mart and
-- query there from the same SQL; a view is plain SQL both engines read alike.
with

sessions as (
    select
        session_id,
        started_at,
    from fct_sessions
),

links as (
    select
        session_id,
        base_path,
    from dim_session_bases
)

select
    sessions.session_id,
    links.base_path,
    sessions.started_at,
from sessions
left join links on sessions.session_id = links.session_id
