-- int_index_reads_versioned: reads of a base's INDEX.md with the index version of their time.
-- Grain: one row per (read, base).
-- key: tool_use_id, read_idx, base_path
-- incremental: session_id (rows depend on their own session only)
-- materialized: temp (read by several models in one build; the file keeps it as a view)
-- Index version: the last commit of INDEX.md at or before the read; the earliest version
-- when the read predates every commit; the worktree file for a base outside git.
-- line_from/line_to: the delivered range clipped to the version's length (a tail read
-- counts back from the version's last line; a failed or empty read is 1..0).
with

reads as (
    select *, from int_file_reads_delivered
    where target = 'index'
),

versions as (
    select *, from stg_index_versions
),

at_version as (
    select
        reads.*,
        coalesce(
            (
                select v.version_id, from versions as v
                where v.base_path = reads.base_path and v.committed_at <= reads.called_at
                order by v.committed_at desc, v.version_id desc limit 1
            ),
            (
                select v.version_id, from versions as v
                where v.base_path = reads.base_path
                order by v.committed_at nulls first, v.version_id limit 1
            )
        ) as version_id,
    from reads
)

select
    at_version.*,
    versions.n_lines,
    versions.active_heading_line,
    -- a failed or empty read shows no line: the empty range 1..0
    case
        when not is_delivered then 1
        when method = 'tail' and tail_n is not null and range_start is null
            then greatest(versions.n_lines - tail_n + 1, 1)
        else greatest(coalesce(delivered_from, 1), 1)
    end as line_from,
    case
        when not is_delivered then 0
        else least(coalesce(delivered_to, versions.n_lines), versions.n_lines)
    end as line_to,
from at_version
left join versions using (base_path, version_id)
