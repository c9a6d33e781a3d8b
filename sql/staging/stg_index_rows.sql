-- stg_index_rows: raw_index_rows as loaded (renamed only where a name would clash).
-- Grain: one row per raw_index_rows row.
select *, from raw_index_rows
