-- fct_file_reads: every file read of a kept agent run, with the delivered line range
-- (see int_file_reads_delivered for how the range is cut by the result).
-- Grain: one row per (tool_use_id, read_idx, base_path).
-- key: tool_use_id, read_idx, base_path (nullable)
-- incremental: session_id (rows depend on their own session only)
select * exclude (read_text), from int_file_reads_delivered
