-- stg_events: transcript lines, each once.
-- Grain: one row per distinct transcript line.
-- Claude Code lines are de-duplicated by `uuid` across files: a resumed session replays
-- earlier lines with the same uuid (and a different sessionId); the copy kept is the one in
-- the session that started first. The replayed lines carry their old timestamps, so the
-- original and its resumes start at the same instant: the tie goes to the session that ended
-- first (the original), then to the first file by path. Lines without a uuid (Codex,
-- bookkeeping lines) are all kept.
with

events as (
    select * from raw_events
),

files as (
    select file_id, path from raw_files
),

session_starts as (
    select
        session_id,
        min(ts) as session_started_at,
        max(ts) as session_ended_at,
    from events
    where session_id is not null
    group by session_id
),

ranked as (
    select
        events.*,
        files.path as file_path,
        coalesce(events.agent_id, 'main') as agent_key,
        row_number() over (
            partition by coalesce(
                events.uuid, events.file_id::varchar || ':' || events.line_no::varchar
            )
            order by
                session_starts.session_started_at nulls last,
                session_starts.session_ended_at nulls last,
                files.path,
                events.line_no
        ) as copy_rank,
    from events
    left join session_starts using (session_id)
    left join files using (file_id)
)

select * exclude (copy_rank) from ranked where copy_rank = 1
