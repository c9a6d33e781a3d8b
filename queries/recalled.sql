-- recalled: the evidence that lesson $lesson surfaced in session $session before $before.
-- Grain: one row per piece of evidence, earliest first.
-- Parameters: $lesson (id), $session (session id), $before (timestamp or null = the end
-- of the session), $bases (list or null).
-- kind: body / quoted make it recalled; index_row alone is index-only.
select
    base_path,
    lesson_id,
    session_id,
    agent_run_id,
    kind,
    surfaced_at,
    tool_use_id,
    evidence,
    transcript_file,
    transcript_line,
from fct_recall_evidence
where
    lesson_id = $lesson
    and session_id = $session
    and ($before is null or surfaced_at < $before)
    and ($bases is null or list_contains($bases, base_path))
order by surfaced_at, kind, tool_use_id
