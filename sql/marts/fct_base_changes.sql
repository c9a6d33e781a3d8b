-- fct_base_changes: the changes to a base that may move its numbers, the interventions of
-- `effect`: the INDEX.md layout (its Active heading moved to another line), a lesson
-- promoted (its status turned active) or retired (turned retired, or its file deleted),
-- and a hook or scout prompt file of the repository changed (bases.PROMPT_PATH).
-- Grain: one row per (base, commit, kind, detail).
-- key: base_path, commit, kind, detail
-- detail: the lesson id, the prompt file's path, or 'line A -> B' for a layout change.
-- The first committed INDEX.md is not a layout change (nothing moved); a lesson whose
-- first version is already active counts as promoted by that commit.
with

index_versions as (
    select *, from stg_index_versions
    where committed_at is not null
),

lesson_versions as (
    select *, from stg_lesson_versions
),

repo_changes as (
    select *, from stg_repo_changes
),

index_moves as (
    select
        base_path,
        version_id as commit,
        committed_at,
        active_heading_line,
        lag(active_heading_line) over (
            partition by base_path order by committed_at
        ) as previous_line,
        row_number() over (
            partition by base_path order by committed_at
        ) as version_no,
    from index_versions
),

layout as (
    select
        base_path,
        commit,
        committed_at,
        'layout' as kind,
        'line ' || coalesce(previous_line::varchar, 'none') || ' -> '
        || coalesce(active_heading_line::varchar, 'none') as detail,
    from index_moves
    where
        version_no > 1
        and previous_line is distinct from active_heading_line
),

statuses as (
    select
        base_path,
        lesson_id,
        commit,
        committed_at,
        status,
        lag(status) over (
            partition by base_path, lesson_id order by committed_at, version_seq
        ) as previous_status,
        version_seq,
    from lesson_versions
),

status_changes as (
    select
        base_path,
        commit,
        committed_at,
        case when status = 'active' then 'promote' else 'retire' end as kind,
        lesson_id as detail,
    from statuses
    where
        (status = 'active' and coalesce(previous_status, '') <> 'active')
        or (
            status = 'retired' and version_seq > 0
            and coalesce(previous_status, '') <> 'retired'
        )
),

files as (
    select
        base_path,
        commit,
        committed_at,
        case when kind = 'prompt' then 'prompt' else 'retire' end as kind,
        case
            when kind = 'prompt' then path
            else regexp_extract(path, '(L-[0-9]+)[^0-9/][^/]*$', 1)
        end as detail,
    from repo_changes
),

changes as (
    select *, from layout
    union all
    select *, from status_changes
    union all
    select *, from files
)

select distinct *, from changes
