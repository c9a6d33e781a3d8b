-- int_events_deduplicated: transcript lines, each once (text cut to its first 200
-- characters; the full text stays in stg_events).
-- Grain: one row per distinct transcript line.
-- key: file_id, line_no
-- incremental: session_id (rows depend on their own session only)
-- materialized: temp (read by several models in one build; the file keeps it as a view)
-- Claude Code lines are de-duplicated by `uuid` across files: a resumed session replays
-- earlier lines with the same uuid (and a different sessionId); the copy kept is the one in
-- the session that started first. The replayed lines carry their old timestamps, so the
-- original and its resumes start at the same instant: the tie goes to the session that ended
-- first (the original), then to the first file by path (then id). Lines without a uuid
-- (bookkeeping lines) are all kept.
-- Codex lines have a uuid chained over the payloads of their stream (transcripts/codex.py): a
-- resumed rollout keeps its own session_meta, then replays the parent's rollout from the
-- parent's session_meta on, so each replayed line has the uuid of the parent's line; the
-- parent started first, so its copy is kept and the replay counts once. The chain breaks at
-- the first line the parent does not have: every later line, and its calls, belongs to the
-- resumed session. When the parent's rollout is not loaded, nothing matches and the
-- replayed lines stay with the resumed session (the only copy there is). Legacy one-document
-- rollouts (`rollout-*.json`) chain from their first item: a file that starts with the
-- history of an earlier one keeps only its new items (two that merely open with the same
-- messages share those leading messages; the first call, its id unique, ends the sharing).
with

-- each step reads stg_events itself rather than a shared CTE of every column: DuckDB
-- materializes a CTE read twice, and copying every line once more was a third of this
-- model's cost; the scans read only the columns each step needs
session_starts as (
    select
        session_id,
        min(ts) as session_started_at,
        max(ts) as session_ended_at,
    from stg_events
    where session_id is not null
    group by session_id
),

-- only the uuids that occur more than once need ranking: most lines are single copies,
-- and sorting every line of the corpus was the costliest step of a cold build
duplicated as (
    select uuid, from stg_events
    where uuid is not null
    group by uuid
    having count(*) > 1
),

-- ON, not USING (here and in ranked): Spark moves a USING column to the front, and the
-- union below is by position; the lines that belong to no session (titles, bookkeeping)
-- are dropped here: nothing later reads them
singles as (
    select
        events.* exclude (text),
        left(events.text, 200) as text_head,
    from stg_events as events
    anti join duplicated on events.uuid = duplicated.uuid
    where events.session_id is not null
),

ranked as (
    select
        events.* exclude (text),
        left(events.text, 200) as text_head,
        row_number() over (
            partition by events.uuid
            order by
                session_starts.session_started_at nulls last,
                session_starts.session_ended_at nulls last,
                events.file_path,
                events.file_id,
                events.line_no
        ) as copy_rank,
    from stg_events as events
    left join session_starts on events.session_id = session_starts.session_id
    where events.uuid in (select uuid, from duplicated)
)

-- uuid and parentUuid have done their work here; nothing later reads them
select * exclude (uuid, parent_uuid),
from singles
union all
select * exclude (copy_rank, uuid, parent_uuid),
from ranked
where copy_rank = 1 and session_id is not null
