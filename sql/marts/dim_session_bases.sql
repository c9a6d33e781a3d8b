-- dim_session_bases: sessions and the bases they belong to.
-- Grain: one row per (session, base).
-- key: session_id, base_path
-- incremental: session_id (rows depend on their own session only)
with

links as (
    select *, from int_session_bases_linked
),

sessions as (
    select session_id, from fct_sessions
)

select links.*,
from links
inner join sessions using (session_id)
