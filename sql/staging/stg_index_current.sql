-- stg_index_current: raw_index_current as loaded (renamed only where a name would clash).
-- Grain: one row per raw_index_current row.
select *, from raw_index_current
