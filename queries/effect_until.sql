-- effect_until: whether $until leaves the answer of effect_lessons for $bases as it is,
-- so that a report asks it once (its signs ask it without $until, its effects up to the
-- week's end, and the week is most often the data's last).
-- Grain: one row.
-- Parameters: $bases, $until.
-- effect_lessons reads $until twice: it keeps the exposures whose session started before
-- it (a null start never passes) and the hits that name no exposure and lie before it
-- (missed_at, else the hit's date). When every exposure of the bases started before
-- $until and every hit of theirs lies before it, both keep every row: same answer.
select
    not exists (
        select 1 as late,
        from fct_lesson_exposures
        where
            ($bases is null or list_contains($bases, base_path))
            and (started_at is null or started_at >= $until)
    )
    and not exists (
        select 1 as late,
        from fct_hit_attribution
        where
            ($bases is null or list_contains($bases, base_path))
            and coalesce(missed_at, hit_date::timestamptz) >= $until
    ) as unchanged,
