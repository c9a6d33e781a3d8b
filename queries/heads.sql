-- heads: head-read truncation of the index, per base (metrics.md §1).
-- Grain: one row per base with at least one index read.
-- Parameters: $bases (list or null), $since, $until (timestamps or null).
-- Choices: head reads are `head` commands (also `cat F | head -N`, `cd D && head F`);
-- head_20_60 counts head reads with 20 <= N <= 60; prefix reads name their N and deliver
-- lines 1..N (a whole-file cat is not one); blind sessions read the index of this base at
-- least once and, over all those reads (subagents included), saw no Active row.
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
        session_id,
        bool_and(is_blind) as is_blind_session,
    from reads
    group by base_path, session_id
),

per_base as (
    select
        base_path,
        count(*) as reads,
        count(*) filter (where method = 'head') as head_reads,
        count(*) filter (where is_prefix_read) as prefix_reads,
        count(*) filter (where method = 'head' and head_n_read between 20 and 60) as head_20_60,
        count(*) filter (where is_blind) as blind_reads,
        count(*) filter (where is_truncated_read) as truncated_reads,
    from reads
    group by base_path
),

per_base_sessions as (
    select
        base_path,
        count(*) as sessions_reading_index,
        count(*) filter (where is_blind_session) as blind_sessions,
    from sessions
    group by base_path
)

select *,
from per_base
inner join per_base_sessions using (base_path)
order by base_path
