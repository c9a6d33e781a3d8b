-- ingest_totals: the warehouse's counts after an ingest run (the totals of `ingest --json`).
-- Grain: one row.
-- Parameters: none.
select
    (select count(*), from fct_sessions) as sessions,
    (select count(*), from dim_agent_runs) as agent_runs,
    (select count(*), from fct_tool_calls) as tool_calls,
    (select count(*), from fct_file_reads) as file_reads,
    (select count(*), from dim_bases) as bases,
    (select count(*), from dim_lessons) as lessons,
    (
        select count(*), from fct_hits
        where is_hit
    ) as hits,
    (select count(*), from fct_load_errors) as load_errors,
