-- report_retired: the retirement record of each retired lesson of a base (date, reason and
-- where it was recorded), which the report's life of the base shows beside a retirement.
-- Grain: one row per retired lesson of each base.
-- Parameters: $bases (list of base paths as dim_bases holds them, or null = all).
select
    base_path,
    lesson_id,
    retired_date,
    reason,
    where_,
from fct_retired
where $bases is null or list_contains($bases, base_path)
