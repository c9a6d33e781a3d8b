-- report_evidence_effect: the exposed sessions with a hit behind each lesson's effect
-- (rate before and after activation, recalled or not), for the report's evidence lists.
-- Grain: one row per (base, lesson, exposed session with a hit of the lesson).
-- Parameters: $bases, $since, $until (session start, as in effect_lessons).
-- Choices: hits without an exposed session (no session named, transcript missing) count
-- in the rates by their own time but have no session to list; the report says how many.
select
    exposures.base_path,
    exposures.lesson_id,
    exposures.session_id,
    exposures.started_at,
    exposures.period,
    exposures.is_recalled,
    exposures.hits,
    sessions.file_path as transcript_file,
from fct_lesson_exposures exposures
left join fct_sessions sessions using (session_id)
where exposures.is_hit
    and ($bases is null or list_contains($bases, exposures.base_path))
    and ($since is null or exposures.started_at >= $since)
    and ($until is null or exposures.started_at < $until)
order by exposures.base_path, exposures.lesson_id, exposures.started_at, exposures.session_id
