from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from lessons_analytics.cards import cards
from lessons_analytics.cli import cli
from lessons_analytics.commands.base_files import cards_cmd
from lessons_analytics.errors import BaseNotFound
from lessons_analytics.settings import Lint
from tests.support.basebuilder import index_text, lesson_text, make_base

HIT = "- 2026-10-01 · what: SECRET-JOURNAL-TEXT · defect: bug"


def _lessons(ids: range, status: str = "active") -> dict[str, str]:
    return {f"L-{i:04d}.md": lesson_text(f"L-{i:04d}", status=status, hits=[HIT]) for i in ids}


@pytest.fixture
def twelve(tmp_path: Path) -> Path:
    lessons = {**_lessons(range(1, 13)), **_lessons(range(50, 53), status="candidate")}
    make_base(tmp_path / "p", lessons=lessons, index=index_text())
    return tmp_path / "p"


@pytest.mark.parametrize(
    ("page", "size", "numbers", "pages"),
    [
        (1, 5, [1, 2, 3, 4, 5], 3),
        (2, 5, [6, 7, 8, 9, 10], 3),
        (3, 5, [11, 12], 3),
        (1, 12, list(range(1, 13)), 1),
        (2, 6, list(range(7, 13)), 2),
        (1, 100, list(range(1, 13)), 1),
    ],
)
def test_paging_arithmetic(twelve: Path, page: int, size: int, numbers: list, pages: int) -> None:
    result = cards(twelve, page=page, page_size=size, lint=Lint())
    assert [c.number for c in result.cards] == numbers
    assert (result.total, result.pages, result.past_end) == (12, pages, False)
    ends_read = result.text.rstrip("\n").endswith("READ: cards 12 of 12")
    assert ends_read is (page == pages) is result.is_last


def test_middle_page_points_at_the_next(twelve: Path) -> None:
    result = cards(twelve, page=2, page_size=5, lint=Lint())
    assert result.footer == "MORE: cards 6-10 of 12 shown; next: --page 3"
    assert "READ:" not in result.text


def test_page_past_the_end(twelve: Path) -> None:
    result = cards(twelve, page=4, page_size=5, lint=Lint())
    assert result.cards == [] and result.past_end
    assert (
        result.text == "page 4 is past the end: 12 cards on 3 page(s) of 5; nothing to read here\n"
    )


def test_empty_base(tmp_path: Path) -> None:
    make_base(tmp_path, lessons=_lessons(range(1, 3), status="candidate"), index=index_text())
    result = cards(tmp_path, lint=Lint())
    assert (result.total, result.pages, result.cards) == (0, 1, [])
    assert result.text == f"no active lessons in: {tmp_path / 'LESSONS'}\n\nREAD: cards 0 of 0\n"
    assert cards(tmp_path, page=2, lint=Lint()).past_end


def test_no_base_and_bad_page(tmp_path: Path) -> None:
    with pytest.raises(BaseNotFound):
        cards(tmp_path, lint=Lint())
    make_base(tmp_path, use_git=False)
    with pytest.raises(ValueError):
        cards(tmp_path, page=0, lint=Lint())


def test_card_is_verbatim_without_journal(tmp_path: Path) -> None:
    text = lesson_text(
        "L-0001", rule="Rule: instead of guessing,\n  run `git status`.", hits=[HIT],
        extra_fm="ritual: '^git status'\nevidence:\n  hits: 1",
    )  # fmt: skip
    text = text.replace("trigger: [report, status]", "trigger:\n  - report\n  - status")
    make_base(tmp_path, lessons={"L-0001-x.md": text})
    (card,) = cards(tmp_path, lint=Lint()).cards
    assert card.text == (
        "id: L-0001\naddressee: all-agents\ntrigger:\n  - report\n  - status\n"
        'scope: "reporting state"\ntarget: "state reported without running the command"\n'
        "Rule: instead of guessing,\n  run `git status`."
    )
    assert "SECRET-JOURNAL-TEXT" not in cards(tmp_path, lint=Lint()).text


def test_sub_project_base_comes_first(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_base(repo, lessons=_lessons(range(1, 3)))
    make_base(repo / "svc", lessons=_lessons(range(100, 102)), repo=repo)
    (repo / "svc" / "src").mkdir()
    result = cards(repo / "svc" / "src", page_size=3, lint=Lint())
    assert [c.lesson_id for c in result.cards] == ["L-0100", "L-0101", "L-0001"]
    assert result.cards[0].base == str((repo / "svc" / "LESSONS").resolve())
    last = cards(repo / "svc" / "src", page=2, page_size=3, lint=Lint())
    assert [c.lesson_id for c in last.cards] == ["L-0002"]
    assert last.text.endswith("READ: cards 4 of 4\n")
    # repo base only
    assert [c.lesson_id for c in cards(repo, lint=Lint()).cards] == ["L-0001", "L-0002"]


def test_cards_cmd(twelve: Path) -> None:
    result = CliRunner().invoke(cards_cmd, [str(twelve), "--page", "3", "--page-size", "5"])
    assert result.exit_code == 0
    assert result.stdout.startswith("--- card 11 of 12 · L-0011 · ")
    assert result.stdout.endswith("\n\nREAD: cards 12 of 12\n")
    doc = orjson.loads(CliRunner().invoke(cards_cmd, [str(twelve), "--json"]).stdout)
    assert doc["schema"] == "lessons-analytics/cards/1"
    assert (doc["page"], doc["pages"], doc["total"], len(doc["cards"])) == (1, 2, 12, 10)
    assert doc["footer"] == "MORE: cards 1-10 of 12 shown; next: --page 2"


def test_cards_cmd_errors(tmp_path: Path) -> None:
    assert CliRunner().invoke(cards_cmd, [str(tmp_path), "--page", "0"]).exit_code == 2
    # errors become messages at the group's boundary (cli.py), as a user runs it
    result = CliRunner().invoke(cli, ["cards", str(tmp_path)])
    assert result.exit_code == 1 and "no LESSONS/ folder" in result.stderr
