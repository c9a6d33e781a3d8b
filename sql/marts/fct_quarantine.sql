-- fct_quarantine: QUARANTINE.md observations.
-- Grain: one row per observation line.
select * from stg_quarantine
