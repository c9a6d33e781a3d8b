-- stg_files: raw_files as loaded (renamed only where a name would clash).
-- Grain: one row per raw_files row.
select *, from raw_files
