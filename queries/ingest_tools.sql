-- ingest_tools: tool calls per tool after an ingest run (`ingest --json` by_tool).
-- Grain: one row per tool name, most called first, ties by name.
-- Parameters: none.
select
    tool_name,
    count(*) as calls,
from fct_tool_calls
group by tool_name
order by calls desc, tool_name asc
