-- stg_load_errors: every input the loader could not use, transcripts and bases alike.
-- Grain: one row per (file, line, reason).
with

transcript_errors as (
    select path as file, line_no as line, reason, 'transcript' as source,
    from raw_load_errors
),

base_errors as (
    select file, line, reason, 'base' as source,
    from raw_base_errors
)

select * from transcript_errors
union all
select * from base_errors
