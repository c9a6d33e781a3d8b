-- sessions: the sessions of the warehouse with their bases.
-- Grain: one row per session. Parameters: $since, $until (session start).
select
    sessions.*,
    (
        select case when count(*) > 0 then list_sort(list(base_path)) end,
        from dim_session_bases as links
        where links.session_id = sessions.session_id
    ) as bases,
from fct_sessions as sessions
where
    ($since is null or started_at >= $since)
    and ($until is null or started_at < $until)
order by started_at
