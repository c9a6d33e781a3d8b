-- fct_index_rows: lesson rows of every INDEX.md version, by section.
-- Grain: one row per (base, version, line).
select * from stg_index_rows
