-- export_file_reads: every file a tool call of the exported sessions read, lesson-base
-- file or not (the OCEL `file` objects and their `reads` relationships).
-- Grain: one row per (read, base); base_path is null outside a base.
-- Parameters: $sessions (list of session ids, from export_sessions).
select
    session_id,
    tool_use_id,
    read_idx,
    path,
    target,
    base_path,
    lesson_id,
from fct_file_reads
where list_contains($sessions, session_id)
order by session_id, tool_use_id, read_idx, base_path
