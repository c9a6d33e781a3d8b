-- bases: the lesson bases the warehouse knows, with the project each one serves.
-- Grain: one row per base, by base path.
-- Parameters: $bases (list of base paths or null: every base).
select
    base_path,
    project_dir,
from dim_bases
where $bases is null or list_contains($bases, base_path)
order by base_path
