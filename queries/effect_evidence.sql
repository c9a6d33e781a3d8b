-- effect_evidence: the sessions behind each lesson's effect counts, and where to look:
-- the transcript, the first recall (file:line of the read or the quote) and the first
-- hit's journal line.
-- Grain: one row per (base, lesson, exposed session) with a hit of the lesson or a
-- recall of it. Parameters: $bases, $since, $until (on the session's start), $hits_only
-- (true: only the sessions with a hit, the rows behind the report's proofs; null or false,
-- as effect.effect_evidence passes by default: every row).
-- The counts of effect_lessons are these rows counted by period, is_hit and is_recalled
-- (plus the hits that name no exposed session, which have no row here).
-- Order: by start, then session id, so two sessions started in the same microsecond come
-- out the same way on every build.
with

exposures as (
    select *, from fct_lesson_exposures
    where
        (is_hit or (first_recall_at is not null and not coalesce($hits_only, false)))
        and ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
),

recall_lines as (
    -- the earliest surfacing, ties broken by its transcript line (both columns of one row):
    -- the least (surfaced_at, file, line) of each session's recalls, compared in that
    -- order with nulls last as an order by sorts them. A group's min, where a row_number
    -- per (base, lesson, session) sorted every recall (half the query's CPU on D)
    select
        base_path,
        lesson_id,
        session_id,
        earliest.file as recall_file,
        earliest.line as recall_line,
    from (
        select
            base_path,
            lesson_id,
            session_id,
            min({
                'at': surfaced_at, 'file': transcript_file, 'line': transcript_line
            }) as earliest,
        from fct_recall_evidence
        where kind in ('body', 'quoted')
        group by base_path, lesson_id, session_id
    ) as ranked
),

hit_lines as (
    -- the earliest journal line of the session's hits, ties broken by file and line
    select
        base_path,
        lesson_id,
        session_id,
        first_missed_at,
        journal_file,
        journal_line,
    from (
        select
            base_path,
            lesson_id,
            session_id,
            min(missed_at) over (
                partition by base_path, lesson_id, session_id
            ) as first_missed_at,
            file_path as journal_file,
            line_no as journal_line,
            row_number() over (
                partition by base_path, lesson_id, session_id
                order by missed_at, file_path, line_no
            ) as pick,
        from fct_hit_attribution
        where session_found
    ) as ranked
    where pick = 1
),

sessions as (
    select
        session_id,
        file_path as transcript_file,
    from fct_sessions
)

select
    exposures.base_path,
    exposures.lesson_id,
    exposures.session_id,
    exposures.started_at,
    exposures.week,
    exposures.period,
    exposures.is_hit,
    exposures.is_recalled,
    exposures.hits,
    sessions.transcript_file,
    exposures.first_recall_at,
    recall_lines.recall_file,
    recall_lines.recall_line,
    hit_lines.first_missed_at,
    hit_lines.journal_file,
    hit_lines.journal_line,
from exposures
inner join sessions using (session_id)
left join recall_lines using (base_path, lesson_id, session_id)
left join hit_lines using (base_path, lesson_id, session_id)
order by
    exposures.base_path, exposures.lesson_id, exposures.started_at, exposures.session_id
