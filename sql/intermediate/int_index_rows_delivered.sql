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

-- each distinct text the reads of a version delivered, once: many reads of one version
-- deliver the same text (D at 1.25 GB: 42,904 reads, 301 texts), and splitting and matching
-- every read's text was most of this model's cost
texts as (
    select
        base_path,
        version_id,
        read_text,
        row_number() over (order by base_path, version_id, read_text) as text_id,
    from (
        select distinct
            base_path,
            version_id,
            read_text,
        from reads
        where read_text is not null
    ) as distinct_texts
),

delivered_lines as (
    select distinct
        text_id,
        base_path,
        version_id,
        trim(line) as line,
    from (
        select
            text_id,
            base_path,
            version_id,
            unnest(string_split(read_text, chr(10))) as line,
        from texts
    ) as split_lines
    -- on the untrimmed line: trimming spaces cannot add or remove 'L-', and only the lines
    -- kept are trimmed (half the cost of trimming every delivered line first)
    where contains(line, 'L-')
),

-- the rows of its version each text shows: a line that ends with the row's text
seen_rows as (
    select distinct
        d.text_id,
        rows.line_no,
    from delivered_lines as d
    inner join rows
        on
            d.base_path = rows.base_path
            and d.version_id = rows.version_id
            and ends_with(d.line, trim(rows.line_text))
),

pairs as (
    select
        reads.session_id,
        reads.tool_use_id,
        reads.read_idx,
        reads.base_path,
        reads.version_id,
        reads.read_text is not null as has_text,
        texts.text_id,
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
    left join texts using (base_path, version_id, read_text)
)

select
    pairs.* exclude (text_id, grep_pattern, grep_flags, row_text),
    case
        when pairs.has_text then seen_rows.line_no is not null
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
left join seen_rows on pairs.text_id = seen_rows.text_id and pairs.line_no = seen_rows.line_no
