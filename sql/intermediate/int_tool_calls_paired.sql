-- int_tool_calls_paired: every call with its result (when one arrived).
-- Grain: one row per tool call.
-- key: tool_use_id
-- materialized: temp (read by several models in one build; the file keeps it as a view)
-- duration_s: a duration the runtime recorded itself (Codex wall time, Task/Glob
-- durationMs) wins; else result timestamp minus call timestamp, exact to the microsecond
-- (epoch() as a double loses the milliseconds; epoch_us, an integer, keeps them and, unlike
-- a date_diff of two zoned times, needs no calendar). No result, no duration.
with

calls as (
    select *, from int_tool_calls_deduplicated
),

results as (
    select *, from int_tool_results_deduplicated
)

select
    calls.session_id,
    calls.agent_key,
    calls.session_id || '/' || calls.agent_key as agent_run_id,
    calls.runtime,
    calls.tool_use_id,
    calls.tool_name,
    calls.ts as called_at,
    results.ts as result_at,
    results.tool_use_id is not null as has_result,
    coalesce(
        results.duration_s,
        (epoch_us(results.ts) - epoch_us(calls.ts)) / 1e6
    ) as duration_s,
    coalesce(results.is_error, false) as is_error,
    results.exit_code,
    calls.cwd,
    calls.command,
    calls.file_path,
    calls.read_offset,
    calls.read_limit,
    calls.prompt_hash,
    calls.input_json,
    results.result_chars,
    results.result_lines,
    coalesce(results.is_truncated, false) as is_truncated,
    results.trunc_chars,
    results.trunc_lines,
    results.is_persisted,
    results.numbered_first,
    results.numbered_last,
    results.numbered_count,
    results.head_part_lines,
    results.tail_part_lines,
    results.tur_start_line,
    results.tur_num_lines,
    results.tur_total_lines,
    results.spawned_agent_id,
    results.text_head as result_head,
    coalesce(results.is_interrupt, false) as is_interrupt,
    coalesce(results.is_rejected, false) as is_rejected,
    calls.transcript_file,
    calls.line_no as call_line,
    results.file_path as result_file,
    results.line_no as result_line,
from calls
left join results using (tool_use_id)
