-- dim_index_versions: every committed version of each base's INDEX.md and its layout.
-- Grain: one row per (base, version).
-- key: base_path, version_id
select * exclude (text), from stg_index_versions
