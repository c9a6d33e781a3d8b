-- session_known: whether the warehouse holds session $session (to tell an unknown session
-- from one where nothing surfaced).
-- Grain: one row.
-- Parameters: $session (session id).
select count(*) as count_sessions,
from fct_sessions
where session_id = $session
