-- heads_by_method: index reads per base and method (read-tool, cat, head, tail, sed, grep,
-- other). Grain: one row per (base, method). Parameters: $bases, $since, $until.
select
    base_path,
    method,
    count(*) as reads,
from fct_index_reads
where
    ($bases is null or list_contains($bases, base_path))
    and ($since is null or called_at >= $since)
    and ($until is null or called_at < $until)
group by base_path, method
order by base_path, method
