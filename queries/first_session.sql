-- first_session: when the warehouse's earliest session started (null when it holds none),
-- so a report's trend starts no earlier than the data.
-- Grain: one row.
-- Parameters: none.
select min(started_at) as first_started_at,
from fct_sessions
