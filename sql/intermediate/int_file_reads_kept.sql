-- int_file_reads_kept: the files each kept read call asked for, with the range the command names,
-- and (for INDEX.md reads) the full result text that is the evidence of what was seen.
-- Grain: one row per (tool_use_id, read_idx).
-- key: tool_use_id, read_idx
-- materialized: view (read by few models; recomputing is cheaper than storing a copy)
with

reads as (
    select *, from stg_file_reads
),

kept_calls as (
    select
        file_id,
        tool_use_id,
    from int_tool_calls_deduplicated
),

kept_results as (
    select
        file_id,
        tool_use_id,
    from int_tool_results_deduplicated
),

texts as (
    select
        stg_read_texts.tool_use_id,
        stg_read_texts.text as read_text,
    from stg_read_texts
    inner join kept_results using (file_id, tool_use_id)
)

select
    reads.*,
    texts.read_text,
from reads
inner join kept_calls using (file_id, tool_use_id)
left join texts using (tool_use_id)
