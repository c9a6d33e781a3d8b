-- effect_lessons: the counts behind the effect of each lesson (the statistics and the
-- verdict are computed from them in lessons_analytics/effect.py, whose docstring holds the
-- verdict rule), and the same exposure and hits per ISO week (the series behind `effect`).
-- Grain: one row per (base, lesson, ISO week, period) with at least one exposed session or
-- one hit, each carrying its lesson's counts; a lesson with neither has one row with a null
-- week. effect.py reads both grains from it: the first row of each lesson whose file
-- names a target or that has a hit (is_listed; the lesson columns) and the rows with a
-- week (the week_* columns), so a period's weeks add up to its totals by construction.
-- Parameters: $bases, $since, $until (on the session's start, and on the time of a hit
-- that names no session of the base), $retire_window_days.
-- Exposure: every session of the lesson's base (subagents included), split at the
-- lesson's activation (fct_lesson_exposures.period). A session is exposed once however
-- long it is.
-- Hits: independent hits, as metrics.md counts them: an exposed session with at least one
-- hit of the lesson counts once; a hit whose session is not an exposed session of the base
-- (no session named, or its transcript is missing) counts once by its own time (ts, else
-- its date) when that time falls inside the span of the base's sessions, and is left out
-- otherwise (a journal older than the transcripts has no exposure to divide by).
-- Recall split (after activation only): recalled_* are the exposed sessions where the
-- lesson was recalled before the miss (or at all, in a session without a hit);
-- unrecalled_* the rest. Hits without a session cannot be split and are in neither.
-- Retire window: the last $retire_window_days days up to the base's last session start,
-- from window_from on (its start, once per base: a date_diff on every exposure is ICU
-- calendar arithmetic, most of this query's time; an interval times a number is portable
-- to Spark, where to_days is not).
-- Weeks: week_exposed_sessions = sessions of the base in the week; week_hits = sessions
-- of the week with a hit of the lesson, plus the hits that name no session of the base,
-- once per independence key, in the week of their date (week_hits_without_session);
-- week_period as period in fct_lesson_exposures. week: ISO week of the session start
-- (UTC), or of the hit's date for a hit without one.
with

lessons as (
    select *, from dim_lesson_activations
    where ($bases is null or list_contains($bases, base_path))
),

exposures as not materialized (
    -- not materialized: each of its three readers scans the columns it reads of
    -- fct_lesson_exposures, where DuckDB copied every column of its 455k rows (D) once for
    -- all (a fresh process's first run on D 0.17 -> 0.11 s, the same rows)
    select
        base_path,
        lesson_id,
        session_id,
        started_at,
        ended_at,
        week,
        period,
        is_hit,
        is_recalled,
    from fct_lesson_exposures
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
),

spans as (
    select
        base_path,
        min(started_at) as first_started_at,
        max(started_at) as last_started_at,
        max(started_at) - interval 1 day * $retire_window_days as window_from,
        max(coalesce(ended_at, started_at)) as last_ended_at,
    from exposures
    group by base_path
),

attributed as (
    -- not named `hits`: fct_lesson_exposures has a column of that name, and Spark resolves
    -- `hits.x` in a correlated subquery against the inner column first
    select *, from fct_hit_attribution
    where ($bases is null or list_contains($bases, base_path))
),

unplaced as (
    select
        attributed.base_path,
        attributed.lesson_id,
        attributed.independence_key,
        coalesce(attributed.missed_at, attributed.hit_date::timestamptz) as missed_at,
    from attributed
    -- an exposure of the hit's (base, lesson, session) is one with is_hit: its session is
    -- in fct_sessions, so the hit is session_found and fct_lesson_exposures counts it. The
    -- hit exposures alone are probed, where all 455k of D were
    where not exists (
        select 1, from exposures
        where
            exposures.is_hit
            and exposures.base_path = attributed.base_path
            and exposures.lesson_id = attributed.lesson_id
            and exposures.session_id = attributed.session_id
    )
),

unplaced_periods as (
    select
        unplaced.base_path,
        unplaced.lesson_id,
        unplaced.independence_key,
        unplaced.missed_at,
        case
            when
                lessons.activated_at is null
                or unplaced.missed_at < lessons.activated_at then 'before'
            when
                lessons.deactivated_at is null
                or unplaced.missed_at < lessons.deactivated_at then 'after'
            else 'inactive'
        end as period,
        unplaced.missed_at >= spans.window_from as in_window,
    from unplaced
    inner join lessons using (base_path, lesson_id)
    inner join spans using (base_path)
    where
        unplaced.missed_at
        between spans.first_started_at and spans.last_ended_at
        and ($since is null or unplaced.missed_at >= $since)
        and ($until is null or unplaced.missed_at < $until)
),

unplaced_counts as (
    select
        base_path,
        lesson_id,
        count(distinct independence_key) filter (
            where period = 'before'
        ) as before_hits,
        count(distinct independence_key) filter (
            where period = 'after'
        ) as after_hits,
        count(distinct independence_key) filter (
            where period = 'after' and in_window
        ) as window_hits,
    from unplaced_periods
    group by base_path, lesson_id
),

exposure_groups as (
    -- the exposed sessions counted once per (lesson, week, period, retire window side):
    -- the lesson's totals and its week series are sums of these few rows, where each
    -- counted every exposure again
    select
        exposures.base_path,
        exposures.lesson_id,
        exposures.week,
        exposures.period,
        exposures.started_at >= spans.window_from as in_window,
        count(*) as sessions,
        count(*) filter (where exposures.is_hit) as hit_sessions,
        count(*) filter (where exposures.is_recalled) as recalled_sessions,
        count(*) filter (
            where exposures.is_recalled and exposures.is_hit
        ) as recalled_hits,
        count(*) filter (where not exposures.is_recalled) as unrecalled_sessions,
        count(*) filter (
            where not exposures.is_recalled and exposures.is_hit
        ) as unrecalled_hits,
        min(exposures.started_at) as first_at,
        max(exposures.started_at) as last_at,
    from exposures
    inner join spans using (base_path)
    group by
        exposures.base_path,
        exposures.lesson_id,
        exposures.week,
        exposures.period,
        exposures.started_at >= spans.window_from
),

exposure_counts as (
    -- a sum is null where a count was 0: lesson_counts reads each through a coalesce
    select
        base_path,
        lesson_id,
        sum(sessions) filter (where period = 'before')::bigint as exposed_before,
        sum(hit_sessions) filter (
            where period = 'before'
        )::bigint as hit_sessions_before,
        sum(sessions) filter (where period = 'after')::bigint as exposed_after,
        sum(hit_sessions) filter (
            where period = 'after'
        )::bigint as hit_sessions_after,
        sum(recalled_sessions) filter (
            where period = 'after'
        )::bigint as recalled_sessions,
        sum(recalled_hits) filter (where period = 'after')::bigint as recalled_hits,
        sum(unrecalled_sessions) filter (
            where period = 'after'
        )::bigint as unrecalled_sessions,
        sum(unrecalled_hits) filter (
            where period = 'after'
        )::bigint as unrecalled_hits,
        min(first_at) filter (where period = 'after') as first_after_at,
        max(last_at) filter (where period = 'after') as last_after_at,
        sum(sessions) filter (
            where period = 'after' and in_window
        )::bigint as window_sessions,
        sum(hit_sessions) filter (
            where period = 'after' and in_window
        )::bigint as window_hit_sessions,
    from exposure_groups
    group by base_path, lesson_id
),

journal as (
    select
        base_path,
        lesson_id,
        count(*) as journal_hits,
    from attributed
    group by base_path, lesson_id
),

unplaced_weeks as (
    select
        base_path,
        lesson_id,
        strftime(missed_at, '%G-W%V') as week,
        period,
        count(distinct independence_key) as hits,
    from unplaced_periods
    group by
        base_path,
        lesson_id,
        strftime(missed_at, '%G-W%V'),
        period
),

exposure_weeks as (
    select
        base_path,
        lesson_id,
        week,
        period,
        sum(sessions)::bigint as exposed_sessions,
        sum(hit_sessions)::bigint as hit_sessions,
    from exposure_groups
    group by base_path, lesson_id, week, period
),

week_counts as (
    select
        coalesce(exposure_weeks.base_path, unplaced_weeks.base_path) as base_path,
        coalesce(exposure_weeks.lesson_id, unplaced_weeks.lesson_id) as lesson_id,
        coalesce(exposure_weeks.week, unplaced_weeks.week) as week,
        coalesce(exposure_weeks.period, unplaced_weeks.period) as week_period,
        coalesce(exposure_weeks.exposed_sessions, 0) as week_exposed_sessions,
        coalesce(exposure_weeks.hit_sessions, 0)
        + coalesce(unplaced_weeks.hits, 0) as week_hits,
        coalesce(unplaced_weeks.hits, 0) as week_hits_without_session,
    from exposure_weeks
    full outer join unplaced_weeks
        on
            exposure_weeks.base_path = unplaced_weeks.base_path
            and exposure_weeks.lesson_id = unplaced_weeks.lesson_id
            and exposure_weeks.week = unplaced_weeks.week
            and exposure_weeks.period = unplaced_weeks.period
),

lesson_counts as (
    select
        lessons.base_path,
        lessons.lesson_id,
        lessons.status,
        lessons.lesson_class,
        lessons.evidence_helped,
        lessons.activated_at,
        lessons.deactivated_at,
        lessons.activation_source,
        coalesce(journal.journal_hits, 0) as journal_hits,
        coalesce(exposure_counts.exposed_before, 0) as exposed_before,
        coalesce(exposure_counts.hit_sessions_before, 0)
        + coalesce(unplaced_counts.before_hits, 0) as hits_before,
        coalesce(exposure_counts.exposed_after, 0) as exposed_after,
        coalesce(exposure_counts.hit_sessions_after, 0)
        + coalesce(unplaced_counts.after_hits, 0) as hits_after,
        coalesce(unplaced_counts.before_hits, 0)
        + coalesce(unplaced_counts.after_hits, 0) as hits_without_session,
        coalesce(exposure_counts.recalled_sessions, 0) as recalled_sessions,
        coalesce(exposure_counts.recalled_hits, 0) as recalled_hits,
        coalesce(exposure_counts.unrecalled_sessions, 0) as unrecalled_sessions,
        coalesce(exposure_counts.unrecalled_hits, 0) as unrecalled_hits,
        case
            when exposure_counts.first_after_at is not null
                then date_diff(
                    'week',
                    date_trunc('week', exposure_counts.first_after_at),
                    date_trunc('week', exposure_counts.last_after_at)
                ) + 1
        end as weeks_after,
        coalesce(exposure_counts.window_sessions, 0) as window_sessions,
        coalesce(exposure_counts.window_hit_sessions, 0)
        + coalesce(unplaced_counts.window_hits, 0) as window_hits,
        lessons.target is not null or coalesce(journal.journal_hits, 0) > 0 as is_listed,
    from lessons
    left join exposure_counts using (base_path, lesson_id)
    left join unplaced_counts using (base_path, lesson_id)
    left join journal using (base_path, lesson_id)
)

select
    lesson_counts.*,
    week_counts.week,
    week_counts.week_period,
    week_counts.week_exposed_sessions,
    week_counts.week_hits,
    week_counts.week_hits_without_session,
from lesson_counts
left join week_counts using (base_path, lesson_id)
order by
    lesson_counts.base_path asc, lesson_counts.lesson_id asc, week_counts.week asc,
    week_counts.week_period asc
