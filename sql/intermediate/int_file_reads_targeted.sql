-- int_file_reads_targeted: each read with its call, its result and what it read in a base.
-- Grain: one row per (tool_use_id, read_idx) and base the path lies in (a path outside
-- every base gives one row with base_path null).
-- key: tool_use_id, read_idx, base_path (nullable)
-- incremental: session_id (rows depend on their own session only)
-- materialized: view (read by one model, the next step of the reads)
-- target: index (INDEX.md), lesson (L-<digits>*.md directly in LESSONS/), quarantine,
-- retired, other.
with

reads as (
    select *, from int_file_reads_kept
),

-- the view read again rather than the reads CTE: DuckDB copies a CTE read twice whole
read_calls as (
    select distinct tool_use_id, from int_file_reads_kept
),

calls as (
    -- the calls of the reads alone: joined whole, every paired call (wide: its input and
    -- result head) was the side DuckDB hashed, and spilled (D at 1.25 GB: the reads'
    -- models 1.84 -> 0.96 s wall)
    select *, from int_tool_calls_paired
    semi join read_calls using (tool_use_id)
),

bases as (
    select base_path, from stg_bases
),

kept_runs as (
    select agent_run_id, from int_agent_runs_identified
    where not is_warmup
),

placed as (
    select
        reads.*,
        bases.base_path,
    from reads
    left join bases
        on starts_with(reads.path, bases.base_path || '/')
)

select
    placed.tool_use_id,
    placed.read_idx,
    placed.path,
    placed.method,
    placed.range_start,
    placed.range_end,
    placed.tail_n,
    placed.head_n,
    placed.is_prefix,
    placed.is_numbered,
    placed.grep_pattern,
    placed.grep_flags,
    placed.n_files,
    placed.read_text,
    placed.base_path,
    case
        when placed.base_path is null then 'other'
        when placed.path = placed.base_path || '/INDEX.md' then 'index'
        when placed.path = placed.base_path || '/QUARANTINE.md' then 'quarantine'
        when placed.path = placed.base_path || '/RETIRED.md' then 'retired'
        when regexp_matches(
            substr(placed.path, length(placed.base_path) + 2), '^L-[0-9]+[^/]*\.md$'
        ) then 'lesson'
        else 'other'
    end as target,
    regexp_extract(
        substr(placed.path, length(placed.base_path) + 2), '^(L-[0-9]+)', 1
    ) as lesson_id,
    calls.* exclude (tool_use_id),
from placed
inner join calls using (tool_use_id)
inner join kept_runs using (agent_run_id)
