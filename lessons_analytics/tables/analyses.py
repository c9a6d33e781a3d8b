"""Tables of the analysis documents: heads, coverage, hits, bodies, cost, recalled."""

from __future__ import annotations

from typing import Any

from lessons_analytics import render


def heads(doc: dict[str, Any]) -> str:
    rows = [
        [
            b["base"],
            b["reads"],
            b["head_reads"],
            b["head_20_60"],
            b["prefix_reads"],
            b["blind_reads"],
            b["truncated_reads"],
            render.share(b["blind_sessions"], b["sessions_reading_index"]),
        ]
        for b in doc["bases"]
    ]
    return render.table(
        rows,
        ["base", "reads", "head", "head 20-60", "prefix", "blind", "truncated", "blind sessions"],
    )


def coverage(doc: dict[str, Any]) -> str:
    rows = [
        [
            b["base"],
            b["sessions_in_scope"],
            render.share(b["sessions_reading_index"], b["sessions_in_scope"]),
            render.share(b["sessions_recalled"], b["sessions_in_scope"]),
        ]
        for b in doc["bases"]
    ]
    out = [render.table(rows, ["base", "sessions", "read index", "recalled"])]
    for b in doc["bases"]:
        if b["by_week"]:
            out.append(f"\n{b['base']}")
            out.append(
                render.table(
                    [
                        [
                            w["week"],
                            w["sessions_in_scope"],
                            render.share(w["sessions_recalled"], w["sessions_in_scope"]),
                        ]
                        for w in b["by_week"]
                    ],
                    ["week", "sessions", "recalled"],
                )
            )
    return "\n".join(out)


def hits(doc: dict[str, Any]) -> str:
    rows = []
    for b in doc["bases"]:
        r = b["by_recall"]
        rows.append(
            [
                b["base"],
                b["hits"],
                render.share(r["recalled"], b["hits"]),
                render.share(r["index_only"], b["hits"]),
                render.share(r["not_recalled"], b["hits"]),
                render.share(r["unknown"], b["hits"]),
                b["top3_share"],
                len(b["disagreements"]),
            ]
        )
    out = [
        render.table(
            rows,
            [
                "base",
                "hits",
                "recalled",
                "index only",
                "not recalled",
                "unknown",
                "top3 share",
                "disagreements",
            ],
        )
    ]
    for b in doc["bases"]:
        if b["lessons"]:
            out.append(f"\n{b['base']}")
            out.append(
                render.table(
                    [
                        [
                            item["id"],
                            item["hits"],
                            item["independent"],
                            item["recalled"],
                            item["index_only"],
                            item["not_recalled"],
                            item["unknown"],
                        ]
                        for item in b["lessons"]
                    ],
                    [
                        "lesson",
                        "hits",
                        "independent",
                        "recalled",
                        "index only",
                        "not recalled",
                        "unknown",
                    ],
                )
            )
    return "\n".join(out)


def bodies(doc: dict[str, Any]) -> str:
    rows = [
        [b["base"], b["reads"], b["tokens"], b["large_reads"], b["large_tokens"], b["large_share"]]
        for b in doc["bases"]
    ]
    out = [
        render.table(
            rows, ["base", "reads", "tokens", "large reads", "large tokens", "large share"]
        )
    ]
    for b in doc["bases"]:
        if b["lessons"]:
            out.append(f"\n{b['base']}")
            out.append(
                render.table(
                    [
                        [i["id"], i["reads"], i["tokens"], i["body_bytes"], i["journal_share"]]
                        for i in b["lessons"][:15]
                    ],
                    ["lesson", "reads", "tokens", "body bytes", "journal share"],
                )
            )
    return "\n".join(out)


def cost(doc: dict[str, Any]) -> str:
    rows = [
        [
            r["pattern"],
            r["lesson"],
            r["calls"],
            r["untimed_calls"],
            r["total_hours"],
            r["hours_per_week"],
            r["median_s"],
            r["p90_s"],
            r["share_of_active_time"],
        ]
        for r in doc["rituals"]
    ]
    return render.table(
        rows,
        [
            "pattern",
            "lesson",
            "calls",
            "untimed",
            "hours",
            "hours/week",
            "median s",
            "p90 s",
            "share of active",
        ],
    )


def recalled(doc: dict[str, Any]) -> str:
    out = [doc["status"]]
    for e in doc["evidence"]:
        out.append(
            f"  {e['surfaced_at']}  {e['kind']:<9}  {e['agent_run_id']}"
            f"  {e['tool_use_id'] or '-'}  {e['evidence']}"
            f"  {e['transcript_file']}:{e['transcript_line']}"
        )
    return "\n".join(out)
