-- stg_file_reads: raw_file_reads as loaded.
-- Grain: one row per raw_file_reads row (resume copies included).
select *, from raw_file_reads
