-- sign_base: each base as the last ingest read it: the fingerprint of its files (to tell
-- whether they changed since) and its INDEX.md as it was on disk, the input of the
-- index-layout sign.
-- Grain: one row per base of $bases the warehouse holds.
-- Parameters: $bases (the LESSONS paths of the bases weighed; `stats` gives one).
select
    base_path,
    fingerprint,
    index_path,
    index_text,
from dim_base_snapshots
where list_contains($bases, base_path)
