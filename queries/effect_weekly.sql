-- effect_weekly: each lesson's exposure and hits per ISO week, the series behind `effect`.
-- Grain: one row per (base, lesson, ISO week, period) with at least one exposed session or
-- one hit.
-- Parameters: $bases (list or null), $since, $until (session start; a hit without a
-- session by its date, as in effect_lessons).
-- Counting is effect_lessons' to the letter, so the weeks of a period add up to its totals:
-- exposed = sessions of the base in the week (subagents belong to their session); hits =
-- sessions of the week with a hit of the lesson, plus the hits that name no session of the
-- base, once per independence key, in the week of their date when it falls inside the span
-- of the transcripts. period: 'before' / 'after' / 'inactive' as in fct_lesson_exposures.
-- week: ISO week of the session start (UTC), or of the hit's date for a hit without one.
with

lessons as (
    select *, from dim_lesson_activations
    where ($bases is null or list_contains($bases, base_path))
),

exposures as (
    select *, from fct_lesson_exposures
    where
        ($bases is null or list_contains($bases, base_path))
        and ($since is null or started_at >= $since)
        and ($until is null or started_at < $until)
),

spans as (
    select
        base_path,
        min(started_at) as first_started_at,
        max(coalesce(ended_at, started_at)) as last_ended_at,
    from exposures
    group by base_path
),

attributed as (
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
    where not exists (
        select 1, from exposures
        where
            exposures.base_path = attributed.base_path
            and exposures.lesson_id = attributed.lesson_id
            and exposures.session_id = attributed.session_id
    )
),

unplaced_weeks as (
    select
        unplaced.base_path,
        unplaced.lesson_id,
        strftime(unplaced.missed_at, '%G-W%V') as week,
        case
            when
                lessons.activated_at is null
                or unplaced.missed_at < lessons.activated_at then 'before'
            when
                lessons.deactivated_at is null
                or unplaced.missed_at < lessons.deactivated_at then 'after'
            else 'inactive'
        end as period,
        count(distinct unplaced.independence_key) as hits,
    from unplaced
    inner join lessons using (base_path, lesson_id)
    inner join spans using (base_path)
    where
        unplaced.missed_at
        between spans.first_started_at and spans.last_ended_at
        and ($since is null or unplaced.missed_at >= $since)
        and ($until is null or unplaced.missed_at < $until)
    group by
        unplaced.base_path,
        unplaced.lesson_id,
        strftime(unplaced.missed_at, '%G-W%V'),
        period
),

exposure_weeks as (
    select
        base_path,
        lesson_id,
        week,
        period,
        count(*) as exposed_sessions,
        count(*) filter (where is_hit) as hit_sessions,
    from exposures
    group by base_path, lesson_id, week, period
)

select
    coalesce(exposure_weeks.base_path, unplaced_weeks.base_path) as base_path,
    coalesce(exposure_weeks.lesson_id, unplaced_weeks.lesson_id) as lesson_id,
    coalesce(exposure_weeks.week, unplaced_weeks.week) as week,
    coalesce(exposure_weeks.period, unplaced_weeks.period) as period,
    coalesce(exposure_weeks.exposed_sessions, 0) as exposed_sessions,
    coalesce(exposure_weeks.hit_sessions, 0)
    + coalesce(unplaced_weeks.hits, 0) as hits,
    coalesce(unplaced_weeks.hits, 0) as hits_without_session,
from exposure_weeks
full outer join unplaced_weeks
    on
        exposure_weeks.base_path = unplaced_weeks.base_path
        and exposure_weeks.lesson_id = unplaced_weeks.lesson_id
        and exposure_weeks.week = unplaced_weeks.week
        and exposure_weeks.period = unplaced_weeks.period
order by base_path, lesson_id, week, period
