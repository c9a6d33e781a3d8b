-- report_evidence_body_reads: every read of a lesson body with its transcript line and the
-- tokens it delivered (the report's evidence lists).
-- Grain: one row per body read. Parameters: $bases, $since, $until (call time, as in
-- `bodies`), $divisor (thresholds.chars_per_token), $large_bytes
-- (thresholds.large_body_bytes), both bound from the settings.
-- Choices: tokens and is_large are computed exactly as in bodies_by_lesson, so the rows of
-- one lesson add up to its `bodies` line.
with

reads as (
    select *, from fct_body_reads
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or called_at >= $since)
        and ($until is null or called_at < $until)
),

lessons as (
    select
        base_path,
        lesson_id,
        body_bytes as lesson_bytes,
    from dim_lessons
),

sized as (
    select
        reads.base_path,
        reads.lesson_id,
        reads.session_id,
        reads.called_at,
        reads.transcript_file,
        reads.call_line,
        ceil(reads.chars_delivered / $divisor)::bigint as tokens,
        coalesce(lessons.lesson_bytes, reads.body_bytes) > $large_bytes
            as is_large,
    from reads
    left join lessons using (base_path, lesson_id)
)

select *, from sized
order by base_path, called_at, session_id, lesson_id
