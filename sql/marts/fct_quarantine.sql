-- fct_quarantine: QUARANTINE.md observations.
-- Grain: one row per observation line.
-- key: base_path, line_no
select *, from stg_quarantine
