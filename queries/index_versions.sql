-- index_versions: every stored version of each base's INDEX.md, committed or not, with the
-- line of its Active heading; the report falls back to it when no version was committed
-- before the week's end.
-- Grain: one row per (base, index version), oldest first; the working-tree version (no
-- commit time) last. Versions committed at the same second go by version id.
-- Parameters: $bases (list of base paths or null: every base).
select
    base_path,
    version_id,
    committed_at,
    active_heading_line,
from dim_index_versions
where $bases is null or list_contains($bases, base_path)
order by base_path, committed_at nulls last, version_id
