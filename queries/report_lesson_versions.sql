-- report_lesson_versions: every committed version of each lesson file with the status and
-- class its front matter declared (stored at ingest; null when it did not parse), for the
-- report's "life of the base".
-- Grain: one row per (base, lesson file, commit), oldest first.
-- Parameters: $bases (list or null = all), $until (commit time, exclusive; null = open).
-- Reads stg_lesson_versions: no mart carries the lesson file versions.
with

versions as (
    select *, from stg_lesson_versions
    where
        ($bases is null or list_contains($bases, base_path))
        and ($until is null or committed_at < $until)
),

bases as (
    select
        base_path,
        repo_root,
    from dim_bases
)

select
    versions.base_path,
    versions.lesson_id,
    versions.file_path,
    versions.commit,
    versions.committed_at,
    strftime(versions.committed_at, '%G-W%V') as week,
    versions.body_bytes,
    versions.hits,
    versions.status,
    versions.lesson_class,
    bases.repo_root,
from versions
left join bases using (base_path)
order by versions.base_path, versions.committed_at, versions.lesson_id
