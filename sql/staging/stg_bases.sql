-- stg_bases: raw_bases as loaded (renamed only where a name would clash).
-- Grain: one row per raw_bases row.
select *, from raw_bases
