-- fct_messages: conversation messages; streamed assistant pieces merged into one response.
-- Grain: one row per user/developer message line, and one per assistant response
-- key: session_id, agent_key, message_key
-- incremental: session_id (rows depend on their own session only)
-- (message.id, requestId) keeping the usage of the piece with the largest total, as
-- ccusage does, and the model of the largest piece that names one. Codex messages come
-- from response_item lines only.
with

-- the assistant lines and the others each read the events themselves: DuckDB materializes a
-- CTE read twice, and copying every kept line once more was 40 % of this model's cost
assistant_events as (
    select events.*,
    from int_events_deduplicated as events
    inner join dim_agent_runs using (session_id, agent_key)
    where
        events.role = 'assistant'
        and (events.runtime = 'claude' or events.line_type = 'response_item')
),

other_events as (
    select
        events.*,
        events.session_id || '/' || events.agent_key as agent_run_id,
    from int_events_deduplicated as events
    inner join dim_agent_runs using (session_id, agent_key)
    where
        events.role <> 'assistant'
        and (events.runtime = 'claude' or events.line_type = 'response_item')
),

assistant as (
    select
        session_id,
        agent_key,
        -- named after grouping, not a key of it: a function of (session_id, agent_key),
        -- and a longer key to hash on every piece (D at 1.25 GB: this model -0.2 CPU s)
        session_id || '/' || agent_key as agent_run_id,
        runtime,
        'assistant' as role,
        coalesce(message_id, file_id::varchar || ':' || line_no::varchar) as message_key,
        min(ts) as ts,
        -- the model of the largest piece that names one, a tie going to the greater name
        -- (a piece without a model is skipped, as arg_max skipped it): the max of a struct
        -- rather than arg_max over one (D at 1.25 GB: this model 2.25 -> 1.82 CPU s), and a
        -- sum as decimal(38, 0), which two bigint counts cannot overflow and which Spark
        -- has too (a hugeint it has not)
        (max({
            'tokens': coalesce(input_tokens, 0)::decimal(38, 0) + coalesce(output_tokens, 0),
            'model': model
        }) filter (where model is not null)).model as model,
        max(coalesce(input_tokens, 0)) as input_tokens,
        max(coalesce(output_tokens, 0)) as output_tokens,
        max(coalesce(cache_creation_tokens, 0)) as cache_creation_tokens,
        max(coalesce(cache_read_tokens, 0)) as cache_read_tokens,
        sum(coalesce(tool_uses, 0)) as tool_uses,
        bool_or(is_api_error or model = '<synthetic>') as is_api_error,
        count(*) as pieces,
    from assistant_events
    group by session_id, agent_key, runtime, message_key, request_id
),

others as (
    select
        session_id,
        agent_key,
        agent_run_id,
        runtime,
        role,
        file_id::varchar || ':' || line_no::varchar as message_key,
        ts,
        model,
        0 as input_tokens,
        0 as output_tokens,
        0 as cache_creation_tokens,
        0 as cache_read_tokens,
        0 as tool_uses,
        is_api_error,
        1 as pieces,
    from other_events
)

select *, from assistant
union all
select *, from others
