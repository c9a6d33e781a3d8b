-- export_tool_calls: the tool calls of the exported sessions, call and result paired.
-- Grain: one row per tool call.
-- Parameters: $sessions (list of session ids, from export_sessions).
-- input_json and result_head are the raw call arguments and the stored head of the
-- result; the exporters redact them and emit them only when asked to.
select
    session_id,
    agent_run_id,
    tool_use_id,
    tool_name,
    called_at,
    result_at,
    has_result,
    duration_s,
    is_error,
    exit_code,
    is_interrupt,
    is_rejected,
    command,
    file_path,
    input_json,
    result_head,
from fct_tool_calls
where list_contains($sessions, session_id)
order by session_id, called_at nulls last, call_line, tool_use_id
