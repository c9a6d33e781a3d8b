"""Bases by their short names in a table, and the legend that maps each back to its path."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lessons_analytics import formats


class BaseNames:
    """The short names of the bases one output shows; :func:`finish` prints their legend."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.names = formats.short_names(paths)

    def __call__(self, path: str) -> str:
        return self.names.get(path, path)


def of_docs(docs: Iterable[Mapping[str, object]], key: str = "base") -> BaseNames:
    return BaseNames(str(d[key]) for d in docs if d.get(key))


def finish(body: str, names: BaseNames | None = None, notes: Iterable[str] = ()) -> str:
    """The output, a blank line, then what its headings mean and ``name = /full/path`` for
    each base it names (nothing after the body when there is neither)."""
    lines = [*notes, *(formats.legend(names.names).splitlines() if names else [])]
    return body + ("\n\n" + "\n".join(lines) if lines else "")
