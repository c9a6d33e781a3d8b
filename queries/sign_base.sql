-- sign_base: one base as the last ingest read it: the fingerprint of its files (to tell
-- whether they changed since) and its INDEX.md as it was on disk, the input of the
-- index-layout sign.
-- Grain: one row per base (none when the warehouse does not hold $base).
-- Parameters: $base (the base's LESSONS path).
select
    base_path,
    fingerprint,
    index_path,
    index_text,
from dim_base_snapshots
where base_path = $base
