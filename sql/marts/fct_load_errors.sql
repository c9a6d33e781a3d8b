-- fct_load_errors: what the loader could not use, with file:line and reason.
-- Grain: one row per error.
-- key: file, line (nullable), reason
select *, from stg_load_errors
