-- stg_quarantine: raw_quarantine as loaded (renamed only where a name would clash).
-- Grain: one row per raw_quarantine row.
select *, from raw_quarantine
