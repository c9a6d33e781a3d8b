-- ingest_totals: the warehouse's counts after an ingest run (the totals of `ingest --json`).
-- Grain: one row.
-- Parameters: none.
-- Each count is a row of a union, turned into a column at the end: as eight one-row
-- subqueries side by side, the planner ordered an eight-way join of them (7.9 against
-- 2.5 ms on D, most of the totals of a +1).
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
    any_value(total) filter (where counted = 'sessions') as sessions,
    any_value(total) filter (where counted = 'agent_runs') as agent_runs,
    any_value(total) filter (where counted = 'tool_calls') as tool_calls,
    any_value(total) filter (where counted = 'file_reads') as file_reads,
    any_value(total) filter (where counted = 'bases') as bases,
    any_value(total) filter (where counted = 'lessons') as lessons,
    any_value(total) filter (where counted = 'hits') as hits,
    any_value(total) filter (where counted = 'load_errors') as load_errors,
from counts
