-- export_index_rows_seen: which lessons' rows each INDEX.md read of the exported sessions
-- delivered (fct_recall_evidence kind index_row).
-- Grain: one row per (index read call, base, lesson).
-- Parameters: $sessions (list of session ids, from export_sessions).
select distinct
    session_id,
    tool_use_id,
    base_path,
    lesson_id,
from fct_recall_evidence
where kind = 'index_row' and list_contains($sessions, session_id)
order by session_id, tool_use_id, base_path, lesson_id
