-- stg_subagent_meta: raw_subagent_meta as loaded (renamed only where a name would clash).
-- Grain: one row per raw_subagent_meta row.
select * from raw_subagent_meta
