-- fct_index_reads: reads of a base's INDEX.md, with what they showed of its Active section.
-- Grain: one row per (read, base).
-- key: tool_use_id, read_idx, base_path
-- incremental: session_id (rows depend on their own session only)
-- active_rows_total / active_rows_seen: Active rows of the index version of the read's time
-- and those delivered (int_index_rows_delivered says how). blind: none seen; truncated:
-- some but not all. head_n: N of a `head` read; prefix: the call names N and delivers lines
-- 1..N (head, sed -n '1,Np', awk 'NR<=N', the Read tool with a limit and no offset); a
-- whole-file `cat` is not a prefix read.
with

reads as (
    select *, from int_index_reads_versioned
),

active as (
    select
        tool_use_id,
        read_idx,
        base_path,
        count(*) as active_rows_total,
        count(*) filter (where is_seen) as active_rows_seen,
    from int_index_rows_delivered
    where section = 'active'
    group by tool_use_id, read_idx, base_path
)

select
    reads.* exclude (read_text),
    coalesce(active.active_rows_total, 0) as active_rows_total,
    coalesce(active.active_rows_seen, 0) as active_rows_seen,
    greatest(reads.line_to - reads.line_from + 1, 0) as lines_delivered,
    case when reads.method = 'head' then coalesce(reads.head_n, reads.range_end) end as head_n_read,
    coalesce(reads.is_prefix, false) and reads.range_end is not null
    and reads.method not in ('tail', 'grep') as is_prefix_read,
    coalesce(active.active_rows_seen, 0) = 0 as is_blind,
    coalesce(active.active_rows_seen, 0) > 0
    and active.active_rows_seen < active.active_rows_total as is_truncated_read,
    strftime(reads.called_at, '%G-W%V') as week,
from reads
left join active using (tool_use_id, read_idx, base_path)
