-- stg_retired: raw_retired as loaded (renamed only where a name would clash).
-- Grain: one row per raw_retired row.
select *, from raw_retired
