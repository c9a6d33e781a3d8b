-- cost_calls: every shell call matching a ritual pattern (metrics.md §5).
-- Grain: one row per matching call.
-- Parameters: $pattern (RE2 regex), $bases (list or null: only sessions of these bases;
-- null = every session, with or without a base), $since, $until (call time).
-- Choices: a call matches when the pattern matches the whole command or one of its simple
-- commands (split on &&, ||, ;, | and newlines), so `cd repo && git commit` matches
-- `^git commit` (the separators become line breaks and the pattern runs in multi-line mode,
-- so ^ and $ anchor at each simple command). duration_s: the runtime's own recorded
-- duration wins, else result time - call time; a call without a result is listed with
-- timed = false.
with

calls as (
    select *, from fct_tool_calls
    where
        command is not null
        and ($since is null or called_at >= $since)
        and ($until is null or called_at < $until)
        and (
            regexp_matches(command, $pattern)
            -- split only a command with a separator: without one the split is the command
            -- itself, on one line, where (?m) changes nothing (4k of 162k commands on D
            -- have one; the split of every command was half of this filter's time)
            or (
                (
                    contains(command, ';')
                    or contains(command, '|')
                    or contains(command, '&&')
                    or contains(command, chr(10))
                )
                and regexp_matches(
                    regexp_replace(
                        command, '\s*(&&|\|\||;|\||\n)\s*', chr(10), 'g'
                    ),
                    '(?m)' || $pattern
                )
            )
        )
),

scoped as (
    select calls.*,
    from calls
    where $bases is null or session_id in (
        select session_id, from dim_session_scope
        where list_contains($bases, base_path)
    )
)

select
    session_id,
    agent_run_id,
    tool_use_id,
    tool_name,
    called_at,
    result_at,
    strftime(called_at, '%G-W%V') as week,
    command,
    has_result and duration_s is not null as timed,
    duration_s,
    exit_code,
    is_error,
    transcript_file,
    call_line,
from scoped
order by called_at, tool_use_id
