-- dim_lesson_activations: when each lesson became active and stopped being active, from
-- the status of every version of its file in git (stg_lesson_versions).
-- Grain: one row per (base, lesson id) of dim_lessons.
-- key: base_path, lesson_id
-- activated_at: the commit of the first version whose status is `active` after a version
-- that was not (or the file's first version, when it was born active). A lesson that went
-- active, then not, then active again dates from its first activation.
-- deactivated_at: the first later version whose status is not `active`, or the commit that
-- deleted the file; null while it stays active.
-- activation_source: 'git'; 'created' for a lesson active now whose file has no committed
-- version (a base outside git), dated from its `created` day; null when never active.
with versions as (
    select *, from stg_lesson_versions
),

lessons as (
    select *, from dim_lessons
),

deletions as (
    select
        base_path,
        regexp_extract(path, '(L-[0-9]+)[^0-9/][^/]*$', 1) as lesson_id,
        committed_at,
    from stg_repo_changes
    where kind = 'lesson_deleted'
),

ordered as (
    select
        base_path,
        lesson_id,
        committed_at,
        status,
        lag(status) over (
            partition by base_path, lesson_id order by committed_at, version_seq
        ) as previous_status,
    from versions
),

activations as (
    select
        base_path,
        lesson_id,
        min(committed_at) as activated_at,
    from ordered
    where status = 'active' and coalesce(previous_status, '') <> 'active'
    group by base_path, lesson_id
),

changes as (
    select
        base_path,
        lesson_id,
        committed_at,
    from ordered
    where coalesce(status, '') <> 'active'
    union all
    select
        base_path,
        lesson_id,
        committed_at,
    from deletions
),

ends as (
    select
        activations.base_path,
        activations.lesson_id,
        min(changes.committed_at) as deactivated_at,
    from activations
    inner join changes
        on
            activations.base_path = changes.base_path
            and activations.lesson_id = changes.lesson_id
            and activations.activated_at < changes.committed_at
    group by activations.base_path, activations.lesson_id
),

versioned as (
    select distinct
        base_path,
        lesson_id,
    from versions
)

select
    lessons.base_path,
    lessons.lesson_id,
    lessons.status,
    lessons.lesson_class,
    lessons.target,
    lessons.evidence_helped,
    case
        when activations.activated_at is not null then activations.activated_at
        when versioned.lesson_id is null and lessons.status = 'active'
            then lessons.created::timestamptz
    end as activated_at,
    ends.deactivated_at,
    case
        when activations.activated_at is not null then 'git'
        when
            versioned.lesson_id is null and lessons.status = 'active'
            and lessons.created is not null then 'created'
    end as activation_source,
from lessons
left join activations using (base_path, lesson_id)
left join ends using (base_path, lesson_id)
left join versioned using (base_path, lesson_id)
