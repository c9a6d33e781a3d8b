-- effect_interventions: each change to a base (fct_base_changes) with the base's
-- coverage, blind sessions and hit rate over the sessions just before and just after it,
-- and those window sessions themselves (the report's evidence lists).
-- Grain: one row per (base, commit that changed something, session of its group's windows);
-- a commit whose windows hold no session has one row, with null side and session columns.
-- interventions.py reads both grains from it: the first row of each commit (its counts)
-- and the distinct (base, group, side, session) rows, so the counts and the sessions they
-- count come from one set of windows.
-- Parameters: $bases, $since, $until (on session starts and commit times),
-- $window_sessions (N: sessions compared on each side).
-- Grouping: commits are taken in time order; a commit with fewer than N sessions of the
-- base started since the previous one joins that commit's group. A group's before window
-- is the N sessions that started before its first commit, its after window the N that
-- started at or after its last commit, so every commit of a group shares its numbers and
-- `confounded` says the credit goes to the package of changes, not to one.
-- Per window: sessions; recalled = sessions that recalled an active lesson of the base
-- (fct_session_recall.recalled_any, coverage = recalled / sessions); reading_index and
-- blind = sessions that read the index and, of those, sessions that saw no Active row
-- (blind share = blind / reading_index); hit_sessions = sessions with at least one hit of
-- a lesson of the base (hits that name no session of the warehouse are not placed).
-- Per window session: side, its flags, and ref_file/ref_line: the earliest recall of an
-- active lesson of the base when the session recalled one (coverage), else its earliest
-- index read (blind share), else the start of its transcript; a hit is named by the flag,
-- its line is in the lesson's evidence.
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

placed as (
    -- each session's place among its base's sessions by start: counted up with ties by id
    -- descending (place_down) and ascending (place_up). The sessions that started before
    -- an instant are the first places, as many as they are, so a window is a range of
    -- places: each base's sessions sorted once, where a row_number per group sorted every
    -- (group, earlier session) pair (the query 0.15 -> 0.10 CPU s on D, 14 groups). The
    -- sessions alone are sorted: their flags are looked up for the few in a window
    select
        *,
        row_number() over (
            partition by base_path order by started_at asc, session_id desc
        ) as place_down,
        row_number() over (
            partition by base_path order by started_at asc, session_id asc
        ) as place_up,
    from sessions
    where started_at is not null
),

bounds as (
    -- per group: the sessions of its base that started before its first commit (the
    -- before window ends at that place) and before its last (the after window starts
    -- after that place)
    select
        groups.base_path,
        groups.group_id,
        count(*) filter (
            where placed.started_at < groups.group_first_at
        ) as first_place,
        count(placed.started_at) as last_place,
    from groups
    left join placed
        on
            groups.base_path = placed.base_path
            and groups.group_last_at > placed.started_at
    group by groups.base_path, groups.group_id
),

before_windows as (
    -- the N sessions that started last before the group's first commit (latest first,
    -- ties by id): the last N places of place_down before it
    select
        bounds.base_path,
        bounds.group_id,
        'before' as side,
        placed.session_id,
        placed.started_at,
    from bounds
    inner join placed
        on
            bounds.base_path = placed.base_path
            and bounds.first_place >= placed.place_down
            and placed.place_down > bounds.first_place - $window_sessions
),

after_windows as (
    -- the N sessions that started first at or after the group's last commit (ties by id)
    select
        bounds.base_path,
        bounds.group_id,
        'after' as side,
        placed.session_id,
        placed.started_at,
    from bounds
    inner join placed
        on
            bounds.base_path = placed.base_path
            and bounds.last_place < placed.place_up
            and placed.place_up <= bounds.last_place + $window_sessions
),

sides as (
    select *, from before_windows
    union all
    select *, from after_windows
),

windows as (
    select
        sides.base_path,
        sides.group_id,
        sides.side,
        sides.session_id,
        sides.started_at,
        coalesce(recall.recalled_any, false) as is_recalled,
        blind.session_id is not null as is_reading_index,
        coalesce(blind.is_blind, false) as is_blind,
        hit_sessions.session_id is not null as is_hit,
    from sides
    left join fct_session_recall as recall using (base_path, session_id)
    left join blind using (base_path, session_id)
    left join hit_sessions using (base_path, session_id)
),

window_counts as (
    select
        base_path,
        group_id,
        count(*) filter (where side = 'before') as sessions_before,
        count(*) filter (
            where side = 'before' and is_recalled
        ) as recalled_before,
        count(*) filter (
            where side = 'before' and is_reading_index
        ) as reading_index_before,
        count(*) filter (where side = 'before' and is_blind) as blind_before,
        count(*) filter (
            where side = 'before' and is_hit
        ) as hit_sessions_before,
        count(*) filter (where side = 'after') as sessions_after,
        count(*) filter (
            where side = 'after' and is_recalled
        ) as recalled_after,
        count(*) filter (
            where side = 'after' and is_reading_index
        ) as reading_index_after,
        count(*) filter (where side = 'after' and is_blind) as blind_after,
        count(*) filter (where side = 'after' and is_hit) as hit_sessions_after,
    from windows
    group by base_path, group_id
),

refs as (
    -- the window sessions' alone: the join hashed every session's refs for a few hundred
    select *, from fct_session_first_refs
    where session_id in (select sides.session_id, from sides)
),

window_sessions as (
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
)

select
    grouped.base_path,
    grouped.commit,
    grouped.committed_at,
    grouped.kinds,
    grouped.details,
    grouped.group_id,
    groups.group_commits,
    groups.group_commits > 1 as confounded,
    groups.group_first_at,
    groups.group_last_at,
    coalesce(window_counts.sessions_before, 0) as sessions_before,
    coalesce(window_counts.recalled_before, 0) as recalled_before,
    coalesce(window_counts.reading_index_before, 0) as reading_index_before,
    coalesce(window_counts.blind_before, 0) as blind_before,
    coalesce(window_counts.hit_sessions_before, 0) as hit_sessions_before,
    coalesce(window_counts.sessions_after, 0) as sessions_after,
    coalesce(window_counts.recalled_after, 0) as recalled_after,
    coalesce(window_counts.reading_index_after, 0) as reading_index_after,
    coalesce(window_counts.blind_after, 0) as blind_after,
    coalesce(window_counts.hit_sessions_after, 0) as hit_sessions_after,
    window_sessions.side,
    window_sessions.session_id,
    window_sessions.started_at,
    window_sessions.is_recalled,
    window_sessions.is_reading_index,
    window_sessions.is_blind,
    window_sessions.is_hit,
    window_sessions.ref_file,
    window_sessions.ref_line,
from grouped
inner join groups using (base_path, group_id)
left join window_counts using (base_path, group_id)
left join window_sessions using (base_path, group_id)
order by
    grouped.base_path asc, grouped.committed_at asc, grouped.commit asc,
    window_sessions.side desc, window_sessions.started_at asc,
    window_sessions.session_id asc
