-- fct_body_reads: reads of lesson body files (main and subagent runs alike).
-- Grain: one row per (read, base).
-- key: tool_use_id, read_idx, base_path
-- incremental: session_id (rows depend on their own session only)
-- chars_delivered: the result's length as the model saw it (line-number prefixes and
-- truncation markers included) when the result is present, else the body's size at the
-- time of the read. A persisted output (Claude Code saved a large result to a file and
-- shows a notice, "Full output saved to: <path>", and a preview) counts without that
-- path: its length is where the transcripts live, not the lesson, and the same read costs
-- the same on every machine (saved_path_chars; the parser keeps that whole line in the
-- result's head). body_bytes: size of the last committed version at or before the read
-- (the current file when none). Tokens and "large" are not stored: they depend on the
-- settings thresholds.chars_per_token and thresholds.large_body_bytes, which the queries
-- (queries/bodies*.sql) take as bound parameters, so a settings change needs no rebuild.
with

reads as (
    select *, from fct_file_reads
    where target = 'lesson'
),

versions as (
    select *, from stg_lesson_versions
),

lessons as (
    select
        base_path,
        lesson_id,
        body_bytes as current_bytes,
        journal_bytes as current_journal,
    from stg_lessons
),

sized as (
    select
        reads.*,
        (
            select v.body_bytes, from versions as v
            where
                v.base_path = reads.base_path and v.lesson_id = reads.lesson_id
                and v.committed_at <= reads.called_at
            order by v.committed_at desc, v.commit desc limit 1
        ) as version_bytes,
        (
            select v.journal_bytes, from versions as v
            where
                v.base_path = reads.base_path and v.lesson_id = reads.lesson_id
                and v.committed_at <= reads.called_at
            order by v.committed_at desc, v.commit desc limit 1
        ) as version_journal_bytes,
        case
            when reads.is_persisted
                then
                    length(regexp_extract(
                        coalesce(reads.result_head, ''), 'Full output saved to: ([^\n]*)\n', 1
                    ))
            else 0
        end as saved_path_chars,
    from reads
)

select
    sized.*,
    coalesce(sized.version_bytes, lessons.current_bytes) as body_bytes,
    coalesce(sized.version_journal_bytes, lessons.current_journal) as journal_bytes,
    case
        when sized.has_result then sized.result_chars - sized.saved_path_chars
        else coalesce(sized.version_bytes, lessons.current_bytes)
    end as chars_delivered,
    strftime(sized.called_at, '%G-W%V') as week,
from sized
left join lessons using (base_path, lesson_id)
