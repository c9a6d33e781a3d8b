-- int_index_rows_delivered: each lesson row of the index version an index read saw or missed.
-- Grain: one row per (read, base, index row).
-- key: tool_use_id, read_idx, base_path, version_id, line_no
-- incremental: session_id (rows depend on their own session only)
-- materialized: temp (read by several models in one build; the file keeps it as a view)
-- When the result text is present it is the evidence: a row is seen when a delivered line
-- ends with the row's text (line-number or file-name prefixes of Read / nl / grep output
-- do not matter; a row cut by a truncation marker is not seen). Without the text: a grep
-- sees the rows matching its pattern (RE2, `i` flag honoured); any other read sees the rows
-- inside its delivered range, plus the tail part a truncation marker kept.
with

reads as (
    select *, from int_index_reads_versioned
),

rows as (
    select *, from stg_index_rows
),

delivered_lines as (
    select distinct
        tool_use_id,
        read_idx,
        base_path,
        trim(line) as line,
    from (
        select
            tool_use_id,
            read_idx,
            base_path,
            unnest(string_split(read_text, chr(10))) as line,
        from reads
        where read_text is not null
    ) as split_lines
    -- on the untrimmed line: trimming spaces cannot add or remove 'L-', and only the lines
    -- kept are trimmed (half the cost of trimming every delivered line first)
    where contains(line, 'L-')
),

pairs as (
    select
        reads.session_id,
        reads.tool_use_id,
        reads.read_idx,
        reads.base_path,
        reads.version_id,
        reads.read_text is not null as has_text,
        reads.method,
        reads.grep_pattern,
        reads.grep_flags,
        reads.line_from,
        reads.line_to,
        reads.tail_part_lines,
        reads.n_lines,
        rows.section,
        rows.line_no,
        rows.lesson_id,
        trim(rows.line_text) as row_text,
    from reads
    inner join rows using (base_path, version_id)
),

by_text as (
    select distinct
        pairs.tool_use_id,
        pairs.read_idx,
        pairs.base_path,
        pairs.line_no,
    from pairs
    inner join delivered_lines as d
        on
            pairs.tool_use_id = d.tool_use_id
            and pairs.read_idx = d.read_idx
            and pairs.base_path = d.base_path
            and ends_with(d.line, pairs.row_text)
    where pairs.has_text
)

select
    pairs.* exclude (grep_pattern, grep_flags, row_text),
    case
        when pairs.has_text then by_text.line_no is not null
        when pairs.method = 'grep'
            then
                coalesce(regexp_matches(
                    pairs.row_text,
                    case
                        when contains(coalesce(pairs.grep_flags, ''), 'i')
                            then '(?i)' || pairs.grep_pattern
                        else pairs.grep_pattern
                    end
                ), false)
        else
            pairs.line_no between pairs.line_from and pairs.line_to
            or (
                pairs.tail_part_lines is not null
                and pairs.line_no > pairs.n_lines - pairs.tail_part_lines
            )
    end as is_seen,
from pairs
left join by_text using (tool_use_id, read_idx, base_path, line_no)
