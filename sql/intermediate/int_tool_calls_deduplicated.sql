-- int_tool_calls_deduplicated: tool_use blocks (Claude Code) and call items (Codex) of kept lines.
-- Grain: one row per tool_use_id (a replayed line repeats its calls; the kept line wins).
-- key: tool_use_id
-- materialized: temp (read by several models in one build; the file keeps it as a view)
-- file_path is the call's own argument (Read/Edit); transcript_file is where the call is.
with

calls as (
    select *, from stg_tool_calls
),

kept_lines as (
    select
        file_id,
        line_no,
        agent_key,
        file_path,
    from int_events_deduplicated
),

ranked as (
    select
        calls.*,
        kept_lines.agent_key,
        kept_lines.file_path as transcript_file,
        row_number() over (
            partition by
                coalesce(calls.tool_use_id, calls.file_id::varchar || ':' || calls.line_no::varchar)
            -- a total order: ids are unique per line (the parser keeps the first), and
            -- calls without an id are told apart by name and input
            order by
                calls.ts, kept_lines.file_path, calls.file_id, calls.line_no,
                calls.tool_name, calls.input_json
        ) as copy_rank,
    from calls
    inner join kept_lines using (file_id, line_no)
)

select * exclude (copy_rank), from ranked
where copy_rank = 1
