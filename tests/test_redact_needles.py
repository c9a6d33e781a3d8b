"""The needles of ``redact.RULES`` only skip work: ``redact`` gives what running every rule
on every text gives, and ``redact_tree`` what redacting each string on its own gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_analytics.redact import RULES, redact, redact_tree

# Pieces of every rule's shapes, in both cases, with the non-ASCII letters that an
# IGNORECASE pattern matches as ASCII (long s, Kelvin sign, dotless and dotted i).
PIECES = [
    "-----BEGIN ", "RSA ", "PRIVATE KEY-----", "-----END PRIVATE KEY-----", "eyJ", "abcd",
    ".", "sk-", "ant-", "AKIA", "ASIA", "A3TX", "ghp_", "github_pat_", "xoxb-",
    "https://hooks.slack.com/services/", "sk_live_", "rk_test_", "whsec_", "AIza", "ya29.",
    "aws", "AWS", "_secret", "SECRET", "=", ": ", " ", "Bearer ", "bEaReR ", "BASIC ",
    "Basic ", "x-api-key", "Authorization", "COOKIE", "password", "PASSWD", "token",
    "TOKEN", "api_key", "ApiKey", "access-key", "private_key", "client_secret",
    "Credentials", "api", "-api-", "Api-Key", "ACCESSKEY", "privatekey", "key", " -u ",
    " --user ", "user:", "pass", "://", "postgres://", "@",
    "example.com", "a@b.co", "'", '"', "\n", "0123456789abcdefABCDEF0123456789", "/", "+",
    "\u017f", "\u212a", "\u0131", "\u0130", "\u00e9", "[REDACTED:token]", "x", "Q", "_", "-",
]  # fmt: skip


def _every_rule(text: str) -> str:
    if not text:
        return text
    for rule in RULES:
        text = rule.apply(text)
    return text


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=14).map("".join))
def test_redact_equals_running_every_rule(text: str) -> None:
    assert redact(text) == _every_rule(text)


def test_each_rule_is_skipped_only_without_its_needles() -> None:
    # one text per rule that the rule rewrites: its needles must be in it
    samples = {
        "private-key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----",
        "jwt": "eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl",
        "api-key": "key sk-ant-api03-abcdefghijklmnopqrstuv",
        "aws-key": "AKIAABCDEFGHIJKLMNOP",
        "github-token": "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "slack-token": "xoxb-1234567890-abcdef",
        "stripe-key": "sk_live_abcdefghijkl",
        "google-api-key": "AIzaSyA-abcdefghijklmnopqrstuvwxyz123",
    }
    assert all(rule.needles for rule in RULES)  # _ANY_NEEDLE takes each rule's first group
    for rule in RULES:
        text = samples.get(rule.kind)
        if text is None or rule.apply(text) == text:
            continue
        hay = text.lower() if rule.folded else text
        assert all(any(needle in hay for needle in group) for group in rule.needles), rule.kind
    assert redact("Cookie: session=abc123") == "Cookie: [REDACTED:token]"
    assert redact("pa\u017f\u017fword=hunter2") == _every_rule("pa\u017f\u017fword=hunter2")


def test_redact_tree_redacts_a_repeated_string_each_time() -> None:
    secret = "token=abc123def"
    tree = {secret: [secret, {"k": secret}], "plain": ["a", "a"]}
    assert redact_tree(tree) == {
        redact(secret): [redact(secret), {"k": redact(secret)}],
        "plain": ["a", "a"],
    }
