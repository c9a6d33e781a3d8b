-- stg_repo_changes: raw_repo_changes as loaded (renamed only where a name would clash).
-- Grain: one row per (base, commit, file changed).
select *, from raw_repo_changes
