"""Whether another process can open a warehouse as its writer: DuckDB locks a file per
process, so only another process sees the lock this one holds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def writer_elsewhere(db: Path | str) -> int:
    """Exit code of opening ``db`` as a writer in another process: 0 when nothing holds it."""
    code = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"
    return subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True).returncode
