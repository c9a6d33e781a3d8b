-- stg_cwd_bases: raw_cwd_bases as loaded (renamed only where a name would clash).
-- Grain: one row per raw_cwd_bases row.
select *, from raw_cwd_bases
