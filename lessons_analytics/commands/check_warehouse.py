"""``check-warehouse``: run the audits of the models' headers over a warehouse."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from lessons_analytics import warehouse
from lessons_analytics.audits import AuditResult, run_audits
from lessons_analytics.documents import AuditRow, CheckWarehouseDocument
from lessons_analytics.options import AppContext, echo_json, json_option
from lessons_analytics.tables import grid


def audit_document(results: list[AuditResult]) -> CheckWarehouseDocument:
    failed = [r for r in results if not r.ok]
    return {
        "schema": "lessons-analytics/check-warehouse/1",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "audits": [_row(r) for r in results],
        "totals": {"audits": len(results), "passed": len(results) - len(failed),
                   "failed": len(failed)},
    }  # fmt: skip


@click.command("check-warehouse")
@json_option
@click.pass_obj
def check_warehouse_cmd(app: AppContext, as_json: bool) -> None:
    """Audit the warehouse: unique and non-null keys, ends after starts, no negative sizes;
    exit 1 when any audit fails.

    Example: lessons-analytics --db warehouse.duckdb check-warehouse --json
    """
    # errors (no warehouse, a locked one) are the group's boundary's to report (cli.py)
    con = warehouse.connect(app.db_path, read_only=True)
    try:
        results = run_audits(con)
    finally:
        con.close()
    document = audit_document(results)
    if as_json:
        echo_json(document)
    else:
        failed = [r for r in results if not r.ok]
        if failed:
            rows = [(r.model, r.audit, r.failing_rows, _sample(r.sample)) for r in failed]
            click.echo(grid.table(rows, ["model", "audit", "failing rows", "sample"]))
        totals = document["totals"]
        click.echo(f"{totals['passed']} of {totals['audits']} audits passed, "
                   f"{totals['failed']} failed")  # fmt: skip
    if document["totals"]["failed"]:
        raise click.exceptions.Exit(1)


def _row(result: AuditResult) -> AuditRow:
    return {"model": result.model, "audit": result.audit, "failing_rows": result.failing_rows,
            "sample": result.sample, "ok": result.ok}  # fmt: skip


def _sample(sample: dict[str, object] | None) -> str:
    if not sample:
        return ""
    return ", ".join(f"{k}={v}" for k, v in sample.items())
