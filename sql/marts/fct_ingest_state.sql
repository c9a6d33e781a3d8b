-- fct_ingest_state: per transcript file, how much has been consumed.
-- Grain: one row per file.
-- key: file_id
-- incremental: file_id (a file's row is its raw_files row)
select * exclude (context_json, head_hash), from stg_files
