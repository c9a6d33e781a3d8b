"""Every secret kind is redacted, also when the text is cut inside the secret."""

from __future__ import annotations

import pytest

from lessons_analytics.redact import KINDS, cut, redact, redact_tree
from tests.support.planted import SECRETS


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_is_redacted(kind: str) -> None:
    text, secret = SECRETS[kind]
    out = redact(f"before {text} after")
    assert secret not in out
    assert "[REDACTED:" in out
    assert out.startswith("before ")
    assert redact(out) == out


def _longest_shown(out: str, secret: str) -> int:
    return max(
        (
            n
            for i in range(len(secret))
            for n in range(1, len(secret) - i + 1)
            if secret[i : i + n] in out
        ),
        default=0,
    )


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_a_cut_inside_the_secret_shows_at_most_three_of_its_characters(kind: str) -> None:
    text, secret = SECRETS[kind]
    start = text.index(secret)
    for end in range(start + 4, start + len(secret)):
        shown = _longest_shown(redact(text[:end]), secret)
        assert shown <= 3, (kind, text[:end], redact(text[:end]))


def test_cut_redacts_before_cutting() -> None:
    text = "x" * 290 + " ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    assert redact(text[:300]).endswith("[REDACTED:github-token]")
    out = cut(text, 300)
    assert "A1b2" not in out and len(out) == 300
    assert cut("short", 300) == "short"
    assert cut("abcdef", 4) == "abc…"


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens: 4096 and input_tokens=12",
        "Basic usage: run make",
        "curl http://localhost:8080",
        "git remote add origin https://github.com/org/repo.git",
        "see https://docs.example.org/guide#setup for the guide",
        "a password is required",
    ],
)
def test_ordinary_text_stays(text: str) -> None:
    assert redact(text) == text


def test_tree_redacts_keys_and_nested_values() -> None:
    tree = {"a": [SECRETS["stripe"][0], {"k": SECRETS["slack"][0]}], SECRETS["google"][0]: 1}
    out = repr(redact_tree(tree))
    for kind in ("stripe", "slack", "google"):
        assert SECRETS[kind][1] not in out


def test_kinds_are_listed_once() -> None:
    assert len(KINDS) == len(set(KINDS)) >= 14
