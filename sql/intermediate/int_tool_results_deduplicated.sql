-- int_tool_results_deduplicated: tool_result blocks (Claude Code) and call outputs (Codex)
-- of kept lines.
-- Grain: one row per tool_use_id; when a call has several results, the first one counts.
-- key: tool_use_id
-- materialized: temp (read by several models in one build; the file keeps it as a view)
with

kept_lines as (
    select
        file_id,
        line_no,
        file_path,
    from int_events_deduplicated
),

-- ON, not USING (here and below): Spark moves a USING column to the front, and the union
-- below is by position
results as (
    select
        stg_tool_results.*,
        kept_lines.file_path,
    from stg_tool_results
    inner join kept_lines
        on
            stg_tool_results.file_id = kept_lines.file_id
            and stg_tool_results.line_no = kept_lines.line_no
    where stg_tool_results.tool_use_id is not null
),

-- only the calls with more than one result need ranking: most have one once the replayed
-- lines are gone, and ranking every result was most of this model's cost
duplicated as (
    select tool_use_id, from results
    group by tool_use_id
    having count(*) > 1
),

singles as (
    select results.*,
    from results
    anti join duplicated on results.tool_use_id = duplicated.tool_use_id
),

ranked as (
    select
        results.*,
        row_number() over (
            partition by results.tool_use_id
            -- a total order: (file, line) is unique per call (the parser keeps one
            -- result per call and line), so two builds keep the same copy
            order by results.ts, results.file_path, results.file_id, results.line_no
        ) as copy_rank,
    from results
    where results.tool_use_id in (select tool_use_id, from duplicated)
)

select *,
from singles
union all
select * exclude (copy_rank),
from ranked
where copy_rank = 1
