-- fct_texts: the full text of user, developer and system/hook lines of kept agent runs (typed
-- prompts, injected harness text, hook output), for retro-collection and quoting.
-- Grain: one row per transcript line that carries text (the first 4000 characters).
-- key: file_path, line_no
-- incremental: session_id (rows depend on their own session only)
with

events as (
    select
        file_id,
        line_no,
        text,
    from stg_events
    where text is not null
),

kept as (
    select *, from fct_events
    where line_type <> 'assistant'
)

select
    kept.session_id,
    kept.agent_key,
    kept.agent_run_id,
    kept.runtime,
    kept.line_type,
    kept.subtype,
    kept.role,
    kept.is_meta,
    kept.ts,
    kept.file_path,
    kept.line_no,
    events.text,
from kept
inner join events using (file_id, line_no)
