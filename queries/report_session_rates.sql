-- report_session_rates: what an hour of session time is in a base, to put every payoff of
-- the report's "Do this first" in session hours (the common unit).
-- Grain: one row. Parameters: $bases (one base), $since, $until (session start).
-- Choices: median_active_s is the median active time (300 s gap cap) of the base's
-- sessions; new_tokens are the tokens that entered the model per session (input, cache
-- creation and output; cache reads re-read what is already there and are left out), so
-- tokens_per_active_hour says how many new tokens an hour of session time carries.
with

sessions as (
    select * from fct_sessions
    where ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
        and exists (
            select 1 from dim_session_bases links
            where links.session_id = fct_sessions.session_id
                and list_contains($bases, links.base_path)
        )
),

tokens as (
    select
        sum(coalesce(input_tokens, 0) + coalesce(cache_creation_tokens, 0)
            + coalesce(output_tokens, 0))::bigint as new_tokens,
    from fct_messages
    where session_id in (select session_id from sessions)
),

scope as (
    select
        count(*) as sessions,
        median(active_seconds) as median_active_s,
        coalesce(sum(active_seconds), 0) as active_seconds,
    from sessions
)

select
    scope.sessions,
    scope.median_active_s,
    scope.active_seconds,
    coalesce(tokens.new_tokens, 0) as new_tokens,
    coalesce(tokens.new_tokens, 0) / nullif(scope.active_seconds / 3600, 0)
        as tokens_per_active_hour,
from scope, tokens
