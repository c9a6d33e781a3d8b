-- effect_intervention_sessions: the sessions behind each change's numbers (the report's
-- evidence lists): the window sessions of effect_interventions, each with its flags and
-- the transcript line that makes it count.
-- Grain: one row per (base, group of changes, side, session).
-- Parameters: $bases, $since, $until, $window_sessions, as in effect_interventions.
-- Grouping and windows are effect_interventions' own, repeated here so this file stays
-- one read-only query: summing the flags per (base, group, side) gives its counts.
-- ref_file/ref_line: the earliest recall of an active lesson of the base when the session
-- recalled one (coverage), else its earliest index read (blind share), else the start of
-- its transcript; a hit is named by the flag, its line is in the lesson's evidence.
with

changes as (
    select *, from fct_base_changes
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or committed_at >= $since)
        and ($until is null or committed_at < $until)
),

sessions as (
    select
        base_path,
        session_id,
        started_at,
    from dim_session_scope
    where
        base_path is not null
        and ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
),

commits as (
    select
        base_path,
        commit,
        min(committed_at) as committed_at,
        list_sort(list(distinct kind)) as kinds,
        list_sort(list(distinct kind || ': ' || coalesce(detail, '?'))) as details,
    from changes
    group by base_path, commit
),

ordered as (
    select
        *,
        lag(committed_at) over (
            partition by base_path order by committed_at, commit
        ) as previous_at,
    from commits
),

gaps as (
    select
        ordered.*,
        (
            select count(*), from sessions
            where
                sessions.base_path = ordered.base_path
                and sessions.started_at >= ordered.previous_at
                and sessions.started_at < ordered.committed_at
        )
            as sessions_since_previous,
    from ordered
),

grouped as (
    select
        *,
        sum(case
            when
                previous_at is null
                or sessions_since_previous >= $window_sessions then 1
            else 0
        end) over (
            partition by base_path order by committed_at, commit
            rows between unbounded preceding and current row
        )::bigint as group_id,
    from gaps
),

groups as (
    select
        base_path,
        group_id,
        min(committed_at) as group_first_at,
        max(committed_at) as group_last_at,
        count(*) as group_commits,
    from grouped
    group by base_path, group_id
),

blind as (
    select
        base_path,
        session_id,
        bool_and(is_blind) as is_blind,
    from fct_index_reads
    group by base_path, session_id
),

hit_sessions as (
    select distinct
        base_path,
        session_id,
    from fct_hit_attribution
    where session_found
),

facts as (
    select
        sessions.base_path,
        sessions.session_id,
        sessions.started_at,
        coalesce(recall.recalled_any, false) as is_recalled,
        blind.session_id is not null as is_reading_index,
        coalesce(blind.is_blind, false) as is_blind,
        hit_sessions.session_id is not null as is_hit,
    from sessions
    left join fct_session_recall as recall using (base_path, session_id)
    left join blind using (base_path, session_id)
    left join hit_sessions using (base_path, session_id)
),

before_windows as (
    select
        groups.base_path,
        groups.group_id,
        'before' as side,
        facts.*
        exclude (base_path),
    from groups
    inner join facts
        on
            groups.base_path = facts.base_path
            and groups.group_first_at > facts.started_at
    qualify row_number() over (
        partition by groups.base_path, groups.group_id
        order by facts.started_at desc, facts.session_id asc
    ) <= $window_sessions
),

after_windows as (
    select
        groups.base_path,
        groups.group_id,
        'after' as side,
        facts.*
        exclude (base_path),
    from groups
    inner join facts
        on
            groups.base_path = facts.base_path
            and groups.group_last_at <= facts.started_at
    qualify row_number() over (
        partition by groups.base_path, groups.group_id
        order by facts.started_at, facts.session_id
    ) <= $window_sessions
),

windows as (
    select *, from before_windows
    union all
    select *, from after_windows
),

refs as (
    select *, from fct_session_first_refs
)

select
    windows.base_path,
    windows.group_id,
    windows.side,
    windows.session_id,
    windows.started_at,
    windows.is_recalled,
    windows.is_reading_index,
    windows.is_blind,
    windows.is_hit,
    case
        when windows.is_recalled and refs.recall_file is not null
            then refs.recall_file
        when windows.is_reading_index
            then coalesce(refs.index_file, fct_sessions.file_path)
        else fct_sessions.file_path
    end as ref_file,
    case
        when windows.is_recalled and refs.recall_file is not null
            then refs.recall_line
        when windows.is_reading_index and refs.index_file is not null
            then refs.index_line
        else 1
    end as ref_line,
from windows
inner join fct_sessions using (session_id)
left join refs using (base_path, session_id)
order by
    windows.base_path asc, windows.group_id asc, windows.side desc, windows.started_at asc,
    windows.session_id asc
