-- stg_index_sections: raw_index_sections as loaded (renamed only where a name would clash).
-- Grain: one row per raw_index_sections row.
select *, from raw_index_sections
