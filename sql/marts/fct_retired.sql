-- fct_retired: RETIRED.md lines: lesson, date, reason, where the remedy went.
-- Grain: one row per retired lesson line.
-- key: base_path, line_no
select *, from stg_retired
