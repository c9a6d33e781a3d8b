-- fct_index_rows: lesson rows of every INDEX.md version, by section.
-- Grain: one row per (base, version, line).
-- key: base_path, version_id, line_no
select *, from stg_index_rows
