-- heads_reads: every read of an INDEX.md with what it showed of the Active section.
-- Purpose: the per-read listing behind `heads` (metrics.md §1).
-- Grain: one row per (read, base).
-- Parameters: $bases (list of LESSONS/ paths or null = all), $since, $until (timestamps or
-- null; a read counts when since <= called_at < until).
select
    base_path,
    session_id,
    agent_run_id,
    tool_use_id,
    called_at,
    week,
    method,
    path,
    head_n_read as head_n,
    is_prefix_read,
    version_id,
    active_heading_line,
    line_from,
    line_to,
    lines_delivered,
    range_source,
    active_rows_total,
    active_rows_seen,
    is_blind,
    is_truncated_read,
    transcript_file,
    call_line,
from fct_index_reads
where
    ($bases is null or list_contains($bases, base_path))
    and ($since is null or called_at >= $since)
    and ($until is null or called_at < $until)
order by base_path, called_at, tool_use_id
