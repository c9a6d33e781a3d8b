-- report_evidence_sessions: the sessions behind recall coverage, each with the transcript
-- line that makes it count (the report's evidence lists).
-- Grain: one row per (base, session) in scope of the base.
-- Parameters: $bases (list or null), $since, $until (session start, as in `coverage`).
-- Choices: recall_* and index_* are fct_session_first_refs' (the earliest surfacing of an
-- active lesson of the base, the earliest index read); a session that recalled nothing or
-- read no index has nulls there.
with

sessions as (
    select *, from fct_session_recall
    where
        in_scope
        and ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
),

refs as (
    select *, from fct_session_first_refs
),

joined as (
    select
        sessions.base_path,
        sessions.session_id,
        sessions.started_at,
        sessions.read_index,
        sessions.recalled_any,
        fct_sessions.file_path as transcript_file,
        refs.recall_lesson,
        refs.recall_file,
        refs.recall_line,
        refs.index_file,
        refs.index_line,
    from sessions
    left join fct_sessions using (session_id)
    left join refs using (base_path, session_id)
)

select *, from joined
order by base_path, started_at, session_id
