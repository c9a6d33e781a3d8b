-- stg_index_versions: raw_index_versions as loaded (renamed only where a name would clash).
-- Grain: one row per raw_index_versions row.
select *, from raw_index_versions
