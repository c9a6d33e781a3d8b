-- sign_hits: the hit journal lines of the bases that the sleep signs of `stats` count.
-- Grain: one row per journal line of the bases, in (lesson file, line) order.
-- Parameters: $bases (the LESSONS paths of the bases weighed; `stats` gives one).
with

hits as (
    select *, from fct_hits
    where list_contains($bases, base_path)
)

select
    base_path,
    lesson_id,
    session_id,
    hit_date,
    ts,
    is_hit,
from hits
order by base_path, file_path, line_no
