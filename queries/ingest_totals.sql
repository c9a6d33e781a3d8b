-- ingest_totals: the warehouse's counts after an ingest run (the totals of `ingest --json`).
-- Grain: one row.
-- Parameters: none.
-- Each count is a row of a union, turned into a column at the end (the max of its one
-- row: Spark reads no any_value with a filter): as eight one-row subqueries side by side,
-- the planner ordered an eight-way join of them (7.9 against 2.5 ms on D, most of the
-- totals of a +1).
with

counts as (
    select
        'sessions' as counted,
        count(*) as total,
    from fct_sessions
    union all
    select
        'agent_runs' as counted,
        count(*) as total,
    from dim_agent_runs
    union all
    select
        'tool_calls' as counted,
        count(*) as total,
    from fct_tool_calls
    union all
    select
        'file_reads' as counted,
        count(*) as total,
    from fct_file_reads
    union all
    select
        'bases' as counted,
        count(*) as total,
    from dim_bases
    union all
    select
        'lessons' as counted,
        count(*) as total,
    from dim_lessons
    union all
    select
        'hits' as counted,
        count(*) as total,
    from fct_hits
    where is_hit
    union all
    select
        'load_errors' as counted,
        count(*) as total,
    from fct_load_errors
)

select
    max(total) filter (where counted = 'sessions') as sessions,
    max(total) filter (where counted = 'agent_runs') as agent_runs,
    max(total) filter (where counted = 'tool_calls') as tool_calls,
    max(total) filter (where counted = 'file_reads') as file_reads,
    max(total) filter (where counted = 'bases') as bases,
    max(total) filter (where counted = 'lessons') as lessons,
    max(total) filter (where counted = 'hits') as hits,
    max(total) filter (where counted = 'load_errors') as load_errors,
from counts
