-- retro_texts: human turns of main agent runs, for the correction and interrupt
-- detectors of `retro`.
-- Grain: one row per user text line (fct_texts, not harness-injected) of a main run.
-- is_after_agent: an assistant line of the same run came before it (a correction needs
-- an agent turn to correct). prev_agent_file / prev_agent_line: the last assistant line
-- of the run before it that made no tool call (the agent's words the user answers: a
-- question asked there makes "no, the other one" an answer, not a correction).
-- Parameters: $since (timestamp or null: lines at or after it), $bases (list of base
-- paths or null: sessions of those bases only).
with

texts as (
    select *, from fct_texts
    where role = 'user' and not coalesce(is_meta, false) and text is not null
),

main_runs as (
    select agent_run_id, from dim_agent_runs
    where is_main
),

first_agent as (
    select
        agent_run_id,
        min(ts) as first_agent_at,
        min(line_no) as first_agent_line,
    from fct_events
    where role = 'assistant'
    group by agent_run_id
),

agent_words as (
    select
        agent_run_id,
        file_path,
        line_no,
    from fct_events
    where role = 'assistant' and coalesce(tool_uses, 0) = 0
),

-- the last agent words before each text of the same run and file: a running max over both
-- kinds of line in file order (line numbers only grow; portable, where ASOF JOIN is not)
prev_words as (
    select distinct
        agent_run_id,
        file_path,
        line_no,
        prev_agent_line,
    from (
        select
            agent_run_id,
            file_path,
            line_no,
            is_text,
            max(case when not is_text then line_no end) over (
                partition by agent_run_id, file_path order by line_no, is_text
                rows between unbounded preceding and 1 preceding
            ) as prev_agent_line,
        from (
            select
                agent_run_id,
                file_path,
                line_no,
                true as is_text,
            from texts
            union all
            select
                agent_run_id,
                file_path,
                line_no,
                false as is_text,
            from agent_words
        ) as lines
    ) as ranked
    where is_text
),

in_scope as (
    select distinct session_id, from dim_session_scope
    where list_contains($bases, base_path)
),

selected as (
    select
        texts.session_id,
        texts.agent_run_id,
        texts.runtime,
        texts.ts,
        texts.file_path,
        texts.line_no,
        texts.text,
        coalesce(
            texts.ts > first_agent.first_agent_at
            or texts.line_no > first_agent.first_agent_line,
            false
        ) as is_after_agent,
        case
            when prev_words.prev_agent_line is not null then texts.file_path
        end as prev_agent_file,
        prev_words.prev_agent_line,
    from texts
    inner join main_runs using (agent_run_id)
    left join first_agent using (agent_run_id)
    left join prev_words
        on
            texts.agent_run_id = prev_words.agent_run_id
            and texts.file_path = prev_words.file_path
            and texts.line_no = prev_words.line_no
    where
        ($since is null or texts.ts >= $since)
        and ($bases is null or texts.session_id in (select session_id, from in_scope))
)

select *, from selected
order by session_id, agent_run_id, ts, file_path, line_no
