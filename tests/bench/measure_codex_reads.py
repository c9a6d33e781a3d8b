"""Share of the real Codex reads the package recognises, run by hand (never by CI):

    .venv/bin/python tests/bench/measure_codex_reads.py [--package DIR]

Ingests ../shared/corpora/real2/codex with the package found in DIR (default: this
checkout; pass an exported older commit to measure "before") and compares its read calls
with the independent count of tests/test_real2_codex.py: calls whose first program is a
reader (cat, head, tail, sed, nl, Get-Content, gc, type) given a file, output not
redirected. Prints the counts for all such calls, for those whose session states a cwd,
and for those under a Windows cwd.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))

from tests.test_real2_codex import CODEX, _looks_like_read, _scan  # noqa: E402

_INGEST = """
import json, sys, duckdb
from pathlib import Path
from lessons_analytics.ingestion import ingest
ingest(Path(sys.argv[1]), [Path(sys.argv[2])])
con = duckdb.connect(sys.argv[1], read_only=True)
ids = [r[0] for r in con.execute("select distinct tool_use_id from raw_file_reads").fetchall()]
print(json.dumps(ids))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", type=Path, default=HERE)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        out = subprocess.run(
            [sys.executable, "-c", _INGEST, str(Path(work) / "w.duckdb"), str(CODEX)],
            cwd=options.package,
            env={"PYTHONPATH": str(options.package)},
            capture_output=True,
            text=True,
            check=True,
        )
    read_calls = set(json.loads(out.stdout.strip().splitlines()[-1]))
    scan = _scan()
    readers = {c: cwd for c, (cmd, cwd) in scan.commands.items() if _looks_like_read(cmd)}
    windows = [c for c, cwd in readers.items() if re.match(r"[A-Za-z]:", cwd or "")]
    groups = {
        "all reader commands": list(readers),
        "with a known cwd": [c for c, cwd in readers.items() if cwd],
        "under a Windows cwd": windows,
    }
    for label, calls in groups.items():
        hit = sum(c in read_calls for c in calls)
        share = hit / len(calls) if calls else 0.0
        print(f"{label}: {hit} of {len(calls)} recognised ({share:.1%})")


if __name__ == "__main__":
    main()
