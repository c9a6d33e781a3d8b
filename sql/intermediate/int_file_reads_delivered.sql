-- int_file_reads_delivered: every file read of a kept agent run, with the delivered range.
-- Grain: one row per (tool_use_id, read_idx, base_path).
-- key: tool_use_id, read_idx, base_path (nullable)
-- incremental: session_id (rows depend on their own session only)
-- materialized: temp (read by several models in one build; the file keeps it as a view)
-- Delivered range, the result text being the evidence when present:
--   numbered output (Read tool, nl, cat -n, grep -n): the first and last line numbers shown;
--   plain output of a single-file read: the command's first line plus the lines shown; a
--   middle truncation marker keeps a head part (here) and a tail part (tail_part_lines);
--   tail reads and multi-file reads: the command's range (the file length is unknown here;
--   fct_index_reads clips index reads to the version's length).
-- A read that failed delivers nothing (range_source 'failed', delivered_from/to null): a
-- Read tool error (file does not exist, EISDIR, too large), a shell read of one file whose
-- output is the reading program's error about that file ("No such file or directory", "Is a
-- directory", PowerShell's "Cannot find path"), a call rejected or interrupted before it
-- ran, a Codex harness failure (no process ran: is_error with no exit code). A result with no
-- lines is an empty delivery (range_source 'empty'), not the inverted range start..start-1.
-- range_source says which: 'result', 'command', 'failed' or 'empty'.
with

reads as (
    select *, from int_file_reads_targeted
),

judged as (
    select
        reads.*,
        has_result and (
            coalesce(is_rejected, false)
            or coalesce(is_interrupt, false)
            or (runtime = 'codex' and is_error and exit_code is null)
            or (method = 'read-tool' and (is_error or regexp_matches(
                coalesce(result_head, ''),
                '^\s*(<tool_use_error>|EISDIR|File does not exist|File content \()'
            )))
            or (
                method <> 'read-tool' and n_files = 1
                and strpos(
                    lower(coalesce(result_head, '')), lower(regexp_extract(path, '[^/]*$'))
                ) > 0
                and regexp_matches(
                    coalesce(result_head, ''),
                    '(No such file or directory|Is a directory|[Cc]an''t (read|open)'
                    || '|[Cc]annot (open|find path|access)|does not exist)'
                )
            )
        ) as is_failed,
    from reads
),

delivered as (
    select
        judged.*,
        case
            when is_failed then 'failed'
            when has_result and coalesce(result_lines, 0) = 0 then 'empty'
            when not has_result then 'command'
            when is_numbered and numbered_first is not null and n_files = 1 then 'result'
            when method = 'read-tool' and tur_start_line is not null then 'result'
            when
                n_files = 1 and method not in ('grep', 'tail') and not coalesce(is_persisted, false)
                and range_start is not null then 'result'
            else 'command'
        end as range_source,
    from judged
)

select
    delivered.* exclude (is_failed),
    range_source not in ('failed', 'empty') as is_delivered,
    case
        when range_source in ('failed', 'empty') then null
        when range_source = 'command' then range_start
        when is_numbered and numbered_first is not null then numbered_first
        when tur_start_line is not null then tur_start_line
        else range_start
    end as delivered_from,
    case
        when range_source in ('failed', 'empty') then null
        when range_source = 'command' then range_end
        when is_numbered and numbered_first is not null then numbered_last
        when tur_start_line is not null then tur_start_line + tur_num_lines - 1
        when head_part_lines is not null then range_start + head_part_lines - 1
        when range_end is null then range_start + result_lines - 1
        else least(range_end, range_start + result_lines - 1)
    end as delivered_to,
from delivered
