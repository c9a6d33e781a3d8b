-- stg_hits: raw_hits as loaded (renamed only where a name would clash).
-- Grain: one row per raw_hits row.
select *, from raw_hits
