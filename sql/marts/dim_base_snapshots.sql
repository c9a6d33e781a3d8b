-- dim_base_snapshots: each base as the last ingest that read it found its files: their
-- fingerprint (to tell whether they changed since) and INDEX.md as it was on disk,
-- uncommitted edits included, which the index-layout sign of `stats` checks.
-- Grain: one row per base (stg_bases).
-- key: base_path
-- index_path, index_text: null when the base had no INDEX.md.
with

bases as (
    select *, from stg_bases
),

indexes as (
    select *, from stg_index_current
)

select
    bases.base_path,
    bases.fingerprint,
    indexes.file_path as index_path,
    indexes.text as index_text,
from bases
left join indexes using (base_path)
