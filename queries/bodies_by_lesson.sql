-- bodies_by_lesson: body reads and tokens per lesson, with the journal's share of the body.
-- Grain: one row per (base, lesson) with at least one read.
-- Parameters: $bases, $since, $until, $divisor (thresholds.chars_per_token), $large_bytes
-- (thresholds.large_body_bytes), both bound from the settings.
-- journal_share: bytes of the hit journal / bytes of the body, of the file as it stands now.
with

reads as (
    select
        *,
        ceil(chars_delivered / $divisor)::bigint as tokens_est,
    from fct_body_reads
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or called_at >= $since)
        and ($until is null or called_at < $until)
),

lessons as (
    select
        base_path,
        lesson_id,
        body_bytes,
        journal_bytes,
    from dim_lessons
)

select
    reads.base_path,
    reads.lesson_id,
    count(*) as reads,
    sum(reads.tokens_est)::bigint as tokens,
    coalesce(any_value(lessons.body_bytes), max(reads.body_bytes)) as body_bytes,
    coalesce(any_value(lessons.body_bytes), max(reads.body_bytes)) > $large_bytes
        as is_large,
    any_value(lessons.journal_bytes) / nullif(any_value(lessons.body_bytes), 0) as journal_share,
    count(distinct reads.session_id) as sessions,
from reads
left join lessons using (base_path, lesson_id)
group by reads.base_path, reads.lesson_id
order by reads.base_path asc, tokens desc, reads.lesson_id asc
