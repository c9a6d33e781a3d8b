-- report_index_versions: every committed version of each base's INDEX.md with the line of
-- its Active heading and that of the version before, to find the re-layouts.
-- Grain: one row per (base, index version), oldest first.
-- Parameters: $bases (list or null = all), $until (commit time, exclusive; null = open).
with

versions as (
    select *, from dim_index_versions
    where
        committed_at is not null
        and ($bases is null or list_contains($bases, base_path))
        and ($until is null or committed_at < $until)
),

ordered as (
    select
        base_path,
        version_id,
        committed_at,
        strftime(committed_at, '%G-W%V') as week,
        n_lines,
        active_heading_line,
        lag(active_heading_line) over (
            partition by base_path order by committed_at, version_id
        ) as previous_active_heading_line,
    from versions
)

select *, from ordered
order by base_path, committed_at, version_id
