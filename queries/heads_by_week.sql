-- heads_by_week: the `heads` counts per base and ISO week of the read (UTC).
-- Grain: one row per (base, week). Parameters: $bases, $since, $until.
with

reads as (
    select *, from fct_index_reads
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or called_at >= $since)
        and ($until is null or called_at < $until)
),

sessions as (
    select
        base_path,
        week,
        session_id,
        bool_and(is_blind) as is_blind_session,
    from reads
    group by base_path, week, session_id
),

per_week as (
    select
        base_path,
        week,
        count(*) as reads,
        count(*) filter (where method = 'head') as head_reads,
        count(*) filter (where is_prefix_read) as prefix_reads,
        count(*) filter (where method = 'head' and head_n_read between 20 and 60) as head_20_60,
        count(*) filter (where is_blind) as blind_reads,
        count(*) filter (where is_truncated_read) as truncated_reads,
    from reads
    group by base_path, week
),

per_week_sessions as (
    select
        base_path,
        week,
        count(*) as sessions_reading_index,
        count(*) filter (where is_blind_session) as blind_sessions,
    from sessions
    group by base_path, week
)

select *,
from per_week
inner join per_week_sessions using (base_path, week)
order by base_path, week
