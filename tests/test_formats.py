"""The one number format, on values worked out by hand."""

from __future__ import annotations

import pytest

from lessons_analytics import formats


@pytest.mark.parametrize(
    ("count", "total", "text"),
    [
        (6, 17, "6/17 (35 %)"),  # 600 / 17 = 35.29
        (1, 8, "1/8 (13 %)"),  # 12.5 rounds half up
        (3, 8, "3/8 (38 %)"),  # 37.5 rounds half up
        (0, 54, "0/54 (0 %)"),
        (54, 54, "54/54 (100 %)"),
        (1, 300, "1/300 (<1 %)"),  # 0.33: a part is not none
        (299, 300, "299/300 (>99 %)"),  # 99.67: a part is not all
        (0, 0, "0/0"),
        (1234, 5000, "1,234/5,000 (25 %)"),  # 24.68
    ],
)
def test_share(count: int, total: int, text: str) -> None:
    assert formats.share(count, total) == text


@pytest.mark.parametrize(
    ("fraction", "text"),
    [(0.917, "92 %"), (0.5, "50 %"), (1.0, "100 %"), (0.0, "0 %"), (0.004, "<1 %"),
     (0.9951, ">99 %"), (None, "-")],
)  # fmt: skip
def test_percent(fraction: float | None, text: str) -> None:
    assert formats.percent(fraction) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.868, "0.868"), (1.1, "1.1"), (1.0, "1"), (216.2, "216"), (8063.6, "8,064"),
     (0.0, "0"), (12.34, "12.3"), (0.00123, "0.00123"), (-2.6, "-2.6"), (7, "7"),
     (20480, "20,480"), (None, "-")],
)  # fmt: skip
def test_number(value: float | int | None, text: str) -> None:
    assert formats.number(value) == text


@pytest.mark.parametrize(
    ("value", "other", "texts"),
    [
        (1.01, 1.0, ("1.01", "1")),  # the comparison that fired shows its difference
        (1.001, 1.0, ("1.001", "1")),  # three places were not enough: four
        (1.1, 1.0, ("1.1", "1")),
        (1.0, 1.0, ("1", "1")),  # equal numbers print equal
        (0.5004, 0.5, ("0.5004", "0.5")),
        (200_000.4, 200_000.0, ("200,000.4", "200,000")),
    ],
)
def test_distinct_never_prints_different_numbers_alike(
    value: float, other: float, texts: tuple[str, str]
) -> None:
    assert formats.distinct(value, other) == texts


def test_distinct_from_whole_numbers() -> None:
    assert formats.distinct(82.7, 25.0, places=0) == ("83", "25")
    assert formats.distinct(25.01, 25.0, places=0) == ("25.01", "25")


def test_units() -> None:
    assert formats.seconds(163.8) == "164 s"
    assert formats.seconds(4.5) == "4.5 s"
    assert formats.hours(0.868) == "0.868 h"
    assert formats.size(512) == "512 bytes"
    assert formats.size(20480) == "20 KiB"
    assert formats.size(16384 + 512) == "16.5 KiB"
    assert formats.size(3 * 1024 * 1024 / 2) == "1.5 MiB"
    assert formats.tokens(8063.6) == "8,064 tokens"
    assert formats.tokens(200_000) == "200,000 tokens"


def test_short_names_are_the_project_folders() -> None:
    names = formats.short_names(
        ["/w/repos/atlas/LESSONS", "/w/repos/harbor/LESSONS", "/w/repos/harbor/x/api/LESSONS"]
    )
    assert names == {
        "/w/repos/atlas/LESSONS": "atlas",
        "/w/repos/harbor/LESSONS": "harbor",
        "/w/repos/harbor/x/api/LESSONS": "api",
    }


def test_short_names_add_parents_until_unique() -> None:
    names = formats.short_names(
        ["/a/x/app/LESSONS", "/b/x/app/LESSONS", "/c/web/LESSONS", "/d/notes"]
    )
    # x/app is shared too: one more parent each; the other names need none
    assert names == {
        "/a/x/app/LESSONS": "a/x/app",
        "/b/x/app/LESSONS": "b/x/app",
        "/c/web/LESSONS": "web",
        "/d/notes": "notes",
    }


def test_legend_lists_name_and_path_by_name() -> None:
    names = {"/w/b/LESSONS": "b", "/w/a/LESSONS": "a"}
    assert formats.legend(names) == "a = /w/a/LESSONS\nb = /w/b/LESSONS"
