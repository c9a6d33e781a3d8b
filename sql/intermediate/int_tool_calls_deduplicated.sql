-- int_tool_calls_deduplicated: tool_use blocks (Claude Code) and call items (Codex) of kept lines.
-- Grain: one row per tool_use_id (a replayed line repeats its calls; the kept line wins).
-- key: tool_use_id
-- materialized: temp (read by several models in one build; the file keeps it as a view)
-- file_path is the call's own argument (Read/Edit); transcript_file is where the call is.
with

kept_lines as (
    select
        file_id,
        line_no,
        agent_key,
        file_path,
    from int_events_deduplicated
),

-- ON, not USING (here and below): Spark moves a USING column to the front, and the union
-- below is by position
calls as (
    select
        stg_tool_calls.*,
        kept_lines.agent_key,
        kept_lines.file_path as transcript_file,
        coalesce(
            stg_tool_calls.tool_use_id,
            stg_tool_calls.file_id::varchar || ':' || stg_tool_calls.line_no::varchar
        ) as call_key,
    from stg_tool_calls
    inner join kept_lines
        on
            stg_tool_calls.file_id = kept_lines.file_id
            and stg_tool_calls.line_no = kept_lines.line_no
),

-- only the calls that occur more than once need ranking: most are single copies once the
-- replayed lines are gone, and ranking every call was most of this model's cost
duplicated as (
    select call_key, from calls
    group by call_key
    having count(*) > 1
),

singles as (
    select calls.*,
    from calls
    anti join duplicated on calls.call_key = duplicated.call_key
),

ranked as (
    select
        calls.*,
        row_number() over (
            partition by calls.call_key
            -- a total order: ids are unique per line (the parser keeps the first), and
            -- calls without an id are told apart by name and input
            order by
                calls.ts, calls.transcript_file, calls.file_id, calls.line_no,
                calls.tool_name, calls.input_json
        ) as copy_rank,
    from calls
    where calls.call_key in (select call_key, from duplicated)
)

select * exclude (call_key),
from singles
union all
select * exclude (call_key, copy_rank),
from ranked
where copy_rank = 1
