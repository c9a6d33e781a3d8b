-- bodies: body-read token cost per base (metrics.md §4).
-- Grain: one row per base with at least one lesson body read.
-- Parameters: $bases, $since, $until (read time), $divisor (chars per token: the setting
-- thresholds.chars_per_token), $large_bytes (a body is large above this size: the setting
-- thresholds.large_body_bytes). Both are bound by the caller; the defaults live in
-- lessons_analytics/settings.py only (`query` binds the settings' values unless -p names them).
-- Choices: tokens = sum over reads of ceil(chars_delivered / divisor); large is judged on
-- the body's size at the time of the read.
with

reads as (
    select
        *,
        ceil(chars_delivered / $divisor)::bigint as tokens_est,
        body_bytes > $large_bytes as is_large,
    from fct_body_reads
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or called_at >= $since)
        and ($until is null or called_at < $until)
)

select
    base_path,
    count(*) as reads,
    sum(tokens_est)::bigint as tokens,
    count(*) filter (where is_large) as large_reads,
    coalesce(sum(tokens_est) filter (where is_large), 0)::bigint as large_tokens,
    coalesce(sum(tokens_est) filter (where is_large), 0) / nullif(sum(tokens_est), 0)
        as large_share,
    count(distinct session_id) as sessions,
from reads
group by base_path
order by base_path
