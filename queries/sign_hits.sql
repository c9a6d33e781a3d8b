-- sign_hits: the hit journal lines of one base that the sleep signs of `stats` count.
-- Grain: one row per journal line of the base, in (lesson file, line) order.
-- Parameters: $base (the base's LESSONS path).
with

hits as (
    select * from fct_hits
    where base_path = $base
)

select
    lesson_id,
    session_id,
    hit_date,
    ts,
    is_hit,
from hits
order by file_path, line_no
