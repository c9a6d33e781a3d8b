-- fct_ingest_state: per transcript file, how much has been consumed.
-- Grain: one row per file.
-- key: file_id
select * exclude (context_json, head_hash), from stg_files
