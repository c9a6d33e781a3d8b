"""Notebooks are committed without outputs: no cell output, no execution count.

Outputs of a notebook run hold local paths and numbers of one machine's warehouse, and
they go stale silently; tests/test_notebooks.py runs the notebooks instead. Strip a
notebook with: jupyter nbconvert --clear-output --inplace notebooks/*.ipynb

Usage: python .ci/check_notebooks.py [FOLDER_OR_FILE...]   (default: notebooks/)
Exit 0 when every notebook is clean, 1 (listing file and cell) otherwise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def problems(path: Path) -> list[str]:
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{path}: not a readable notebook ({exc})"]
    found = []
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            found.append(f"{path}: cell {number} has outputs")
        if cell.get("execution_count") is not None:
            found.append(f"{path}: cell {number} has an execution count")
    return found


def main(args: list[str]) -> int:
    roots = [Path(a) for a in args] or [Path("notebooks")]
    paths = sorted(p for r in roots for p in ([r] if r.is_file() else r.rglob("*.ipynb")))
    found = [line for path in paths for line in problems(path)]
    for line in found:
        print(line)
    print(f"notebooks: {len(paths)} checked, {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
