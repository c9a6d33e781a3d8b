-- report_base_git: whether a base is a git repository, for the report's "life of the base"
-- (a base outside git has no committed versions, so no history to show).
-- Grain: one row per base (none for a base not in the warehouse).
-- Parameters: $bases (list of base paths as dim_bases holds them, or null = all).
select
    base_path,
    is_git,
from dim_bases
where $bases is null or list_contains($bases, base_path)
