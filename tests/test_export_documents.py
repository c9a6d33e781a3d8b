"""The ``--json`` documents of ``export`` and ``check-warehouse`` against their TypedDicts."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lessons_analytics import documents as d
from lessons_analytics.cli import cli
from tests.test_documents import db, mismatches  # noqa: F401  (db: the scenario warehouse)


def _emitted(db: Path, *args: str) -> dict[str, object]:  # noqa: F811
    result = CliRunner().invoke(cli, ["--db", str(db), *args, "--json"])
    assert result.exit_code == 0, result.output
    document: dict[str, object] = json.loads(result.stdout)
    return document


def test_export_document_has_the_emitted_keys(db: Path, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "out"
    doc = _emitted(db, "export", "--parquet", str(out / "parquet"), "--otel",
                   str(out / "traces.json"), "--ocel", str(out / "log.sqlite"))  # fmt: skip
    assert {"parquet", "otel", "ocel"} <= doc.keys()
    assert mismatches(d.ExportDocument, doc) == []
    # a misspelt key is seen, so the comparison above can fail
    assert mismatches(d.ExportDocument, {**doc, "otle": {}}) == ["$.otle: emitted, not declared"]


def test_check_warehouse_document_has_the_emitted_keys(db: Path) -> None:  # noqa: F811
    doc = _emitted(db, "check-warehouse")
    assert doc["audits"]
    assert mismatches(d.CheckWarehouseDocument, doc) == []
