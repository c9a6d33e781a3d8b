-- stg_load_errors: every input the loader could not use, transcripts and bases alike.
-- Grain: one row per (file, line, reason): a file that stays unreadable reports the same
-- error on every run, and it counts once.
with

transcript_errors as (
    select
        path as file,
        line_no as line,
        reason,
        'transcript' as source,
    from raw_load_errors
),

base_errors as (
    select
        file,
        line,
        reason,
        'base' as source,
    from raw_base_errors
)

select distinct *, from transcript_errors
union all
select distinct *, from base_errors
