-- export_lesson_reads: reads of lesson bodies and of INDEX.md files in the exported
-- sessions, with how much of the file they delivered.
-- Grain: one row per (read, base): a call reading two files gives two rows.
-- Parameters: $sessions (list of session ids, from export_sessions).
-- lines_seen: delivered lines (delivered_from..delivered_to; for an index clipped to the
-- version's length). is_partial: for an index read, some Active rows were not delivered
-- (blind or truncated, fct_index_reads); for a body read, the harness cut the result
-- ('result cut'), or the delivered lines are a part ('range'): tail or grep, a start past
-- line 1, fewer lines than the Read tool says the file has, or a requested end line that
-- was reached (head -20 of a longer file; head -40 of a 23-line file stops at 23 and is
-- whole). The body's own line count is not in the warehouse, so a requested end that
-- falls exactly on the file's last line counts as partial.
with

bodies as (
    select *, from fct_body_reads
    where list_contains($sessions, session_id)
),

indexes as (
    select *, from fct_index_reads
    where list_contains($sessions, session_id)
),

body_reads as (
    select
        session_id,
        tool_use_id,
        read_idx,
        base_path,
        'body' as kind,
        lesson_id,
        path,
        method,
        delivered_to - delivered_from + 1 as lines_seen,
        null::bigint as active_rows_seen,
        null::bigint as active_rows_total,
        case
            when
                coalesce(is_truncated, false) or coalesce(is_persisted, false)
                or head_part_lines is not null then 'result cut'
            when
                method in ('tail', 'grep') or coalesce(delivered_from, 1) > 1
                or delivered_to < tur_total_lines or delivered_to >= range_end
                then 'range'
        end as partial_reason,
    from bodies
),

index_reads as (
    select
        session_id,
        tool_use_id,
        read_idx,
        base_path,
        'index' as kind,
        null as lesson_id,
        path,
        method,
        lines_delivered as lines_seen,
        active_rows_seen,
        active_rows_total,
        case
            when is_blind and active_rows_total > 0 then 'blind'
            when is_truncated_read then 'rows missing'
        end as partial_reason,
    from indexes
),

reads as (
    select *, from body_reads
    union all
    select *, from index_reads
)

select
    *,
    partial_reason is not null as is_partial,
from reads
order by session_id, tool_use_id, read_idx, base_path
