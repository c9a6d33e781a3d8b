-- fct_recall_evidence: every moment a lesson surfaced in an agent run.
-- Grain: one row per (agent run, lesson, kind, tool call or line).
-- key: base_path, lesson_id, kind, tool_use_id (nullable), transcript_file, transcript_line
-- incremental: session_id (rows depend on their own session only)
-- kind: 'body' (its file was read, any delivered range), 'quoted' (its id arrived in a tool
-- result, a user message or a system/hook message; ids inside an INDEX.md read are not
-- quotes), 'index_row' (its row was among the delivered lines of an index read).
-- Only body and quoted make a lesson recalled; index_row alone is index-only.
with

bodies as (
    select
        base_path,
        lesson_id,
        session_id,
        agent_run_id,
        'body' as kind,
        called_at as surfaced_at,
        tool_use_id,
        path as evidence,
        transcript_file,
        call_line as transcript_line,
    from fct_body_reads
),

runs as (
    select
        session_id,
        agent_key,
        agent_run_id,
    from dim_agent_runs
),

session_bases as (
    select *, from int_session_bases_linked
),

quotes as (
    select
        session_bases.base_path,
        m.lesson_id,
        m.session_id,
        runs.agent_run_id,
        'quoted' as kind,
        m.ts as surfaced_at,
        m.tool_use_id,
        m.source as evidence,
        m.file_path as transcript_file,
        m.line_no as transcript_line,
    from int_mentions_kept as m
    inner join runs using (session_id, agent_key)
    inner join session_bases using (session_id)
),

index_rows as (
    select
        reads.base_path,
        rows.lesson_id,
        reads.session_id,
        reads.agent_run_id,
        'index_row' as kind,
        reads.called_at as surfaced_at,
        reads.tool_use_id,
        reads.path as evidence,
        reads.transcript_file,
        reads.call_line as transcript_line,
    from int_index_rows_delivered as rows
    inner join int_index_reads_versioned as reads using (tool_use_id, read_idx, base_path)
    where rows.is_seen
)

select *, from bodies
union all
select *, from quotes
union all
select *, from index_rows
