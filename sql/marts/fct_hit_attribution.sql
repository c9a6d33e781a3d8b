-- fct_hit_attribution: every hit (journal line whose defect is not form-only/none) with
-- what the transcript says about recall before the miss (metrics.md §3).
-- Grain: one row per hit.
-- key: file_path, line_no
-- incremental: session_id (a hit's row reads only its own session's recall evidence; a
-- hit naming no session depends on the bases alone)
-- recall: unknown when the hit names no session or its transcript is not in the warehouse;
-- else recalled (body read or id quoted, in any run of the session, strictly before the
-- miss), index_only (only its index row was delivered before the miss), not_recalled.
-- The miss is the line's ts, else the end of the session. disagrees: the line's own
-- `recalled` (yes/no) contradicts the transcript (yes vs not recalled, no vs recalled).
with

hits as (
    select *, from fct_hits
    where is_hit
),

evidence as (
    select *, from fct_recall_evidence
),

judged as (
    select
        hits.*,
        (
            select min(e.surfaced_at), from evidence as e
            where
                e.base_path = hits.base_path and e.lesson_id = hits.lesson_id
                and e.session_id = hits.session_id and e.kind in ('body', 'quoted')
                and e.surfaced_at < hits.missed_at
        ) as first_recall_at,
        (
            select min(e.surfaced_at), from evidence as e
            where
                e.base_path = hits.base_path and e.lesson_id = hits.lesson_id
                and e.session_id = hits.session_id and e.kind = 'index_row'
                and e.surfaced_at < hits.missed_at
        ) as first_index_row_at,
    from hits
)

select
    judged.*,
    case
        when not session_found or missed_at is null then 'unknown'
        when first_recall_at is not null then 'recalled'
        when first_index_row_at is not null then 'index_only'
        else 'not_recalled'
    end as recall,
    recalled as recorded_recalled,
    coalesce(caught, 'unknown') as caught_by,
    case
        when not session_found or missed_at is null then false
        when recalled = 'yes' then first_recall_at is null
        when recalled = 'no' then first_recall_at is not null
        else false
    end as disagrees,
    coalesce(session_id, 'line:' || file_path || ':' || line_no::varchar) as independence_key,
    strftime(coalesce(missed_at, hit_date::timestamptz), '%G-W%V') as week,
from judged
