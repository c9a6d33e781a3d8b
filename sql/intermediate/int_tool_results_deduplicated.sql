-- int_tool_results_deduplicated: tool_result blocks (Claude Code) and call outputs (Codex)
-- of kept lines.
-- Grain: one row per tool_use_id; when a call has several results, the first one counts.
-- key: tool_use_id
-- materialized: temp (read by several models in one build; the file keeps it as a view)
with

results as (
    select *, from stg_tool_results
),

kept_lines as (
    select
        file_id,
        line_no,
        file_path,
    from int_events_deduplicated
),

ranked as (
    select
        results.*,
        kept_lines.file_path,
        row_number() over (
            partition by results.tool_use_id
            -- a total order: (file, line) is unique per call (the parser keeps one
            -- result per call and line), so two builds keep the same copy
            order by results.ts, kept_lines.file_path, results.file_id, results.line_no
        ) as copy_rank,
    from results
    inner join kept_lines using (file_id, line_no)
    where results.tool_use_id is not null
)

select * exclude (copy_rank), from ranked
where copy_rank = 1
