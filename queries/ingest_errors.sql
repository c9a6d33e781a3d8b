-- ingest_errors: the first load errors of the warehouse, by file and line (`ingest --json`).
-- Grain: one row per load error, the first $shown by file then line.
-- Parameters: $shown (how many errors at most).
select
    file,
    line,
    reason,
from fct_load_errors
order by file, line
limit $shown
