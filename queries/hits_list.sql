-- hits_list: every hit with its attribution (metrics.md §3), for listings and disagreements.
-- Grain: one row per hit. Parameters: $bases, $since, $until (on the miss time, or the
-- line's date when the miss time is unknown).
select
    base_path,
    lesson_id,
    lesson_class,
    lesson_status,
    file_path,
    line_no,
    hit_date,
    session_id,
    session_found,
    missed_at,
    recall,
    recorded_recalled,
    disagrees,
    caught_by,
    defect,
    what,
    where_,
    independence_key,
    first_recall_at,
    first_index_row_at,
    week,
from fct_hit_attribution
where
    ($bases is null or list_contains($bases, base_path))
    and ($since is null or coalesce(missed_at, hit_date::timestamptz) >= $since)
    and ($until is null or coalesce(missed_at, hit_date::timestamptz) < $until)
order by base_path, lesson_id, line_no
