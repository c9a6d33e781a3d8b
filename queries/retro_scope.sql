-- retro_scope: the bases in scope of `retro` with their repositories, and the sessions
-- linked to each, for running git and for matching clusters to lessons.
-- Grain: one row per (base, session); a base without sessions has one row with a null
-- session_id.
-- Parameters: $bases (list of base paths or null: every base).
with

bases as (
    select
        base_path,
        repo_root,
    from dim_bases
    where $bases is null or list_contains($bases, base_path)
),

links as (
    select *, from dim_session_bases
)

select
    bases.base_path,
    bases.repo_root,
    links.session_id,
from bases
left join links using (base_path)
order by bases.base_path, links.session_id
