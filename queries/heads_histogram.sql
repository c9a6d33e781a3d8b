-- heads_histogram: how many head reads asked for N lines, with the Active heading's line
-- of the index version they hit. Grain: one row per (base, N). Parameters: $bases, $since,
-- $until.
select
    base_path,
    head_n_read as head_n,
    count(*) as reads,
    count(*) filter (where is_blind) as blind_reads,
    min(active_heading_line) as active_heading_line_min,
    max(active_heading_line) as active_heading_line_max,
from fct_index_reads
where
    method = 'head' and head_n_read is not null
    and ($bases is null or list_contains($bases, base_path))
    and ($since is null or called_at >= $since)
    and ($until is null or called_at < $until)
group by base_path, head_n_read
order by base_path, head_n_read
