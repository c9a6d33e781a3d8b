-- bodies_by_week: body reads and tokens per base, lesson and ISO week of the read (UTC).
-- Grain: one row per (base, lesson, week). Parameters: $bases, $since, $until, $divisor
-- (thresholds.chars_per_token, bound from the settings).
select
    base_path,
    lesson_id,
    week,
    count(*) as reads,
    sum(ceil(chars_delivered / $divisor))::bigint as tokens,
from fct_body_reads
where
    ($bases is null or list_contains($bases, base_path))
    and ($since is null or called_at >= $since)
    and ($until is null or called_at < $until)
group by base_path, lesson_id, week
order by base_path, lesson_id, week
