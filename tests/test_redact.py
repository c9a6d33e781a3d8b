from __future__ import annotations

import pytest

from lessons_analytics.redact import redact

PEM = """-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MmFxl1SMeBRGWb1d
f4a9v8XN2vN0Tv9Qe2JHv8Hc8k9Xn0L0tqG8zEw=
-----END RSA PRIVATE KEY-----"""

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key sk-abcdefghijklmnopqrstuv1234 end", "key [REDACTED:api-key] end"),
        (
            "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrSt_uv",
            "ANTHROPIC_API_KEY=[REDACTED:api-key]",
        ),
        ("sk-proj-0123456789abcdefABCDEF", "[REDACTED:api-key]"),
        ("aws AKIAIOSFODNN7EXAMPLE here", "aws [REDACTED:aws-key] here"),
        ("token ghp_1234567890abcdefghijABCDEFGHIJ", "token [REDACTED:github-token]"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijkl", "[REDACTED:github-token]"),
        ("slack xoxb-1234567890-abcdefghij", "slack [REDACTED:slack-token]"),
        ("Authorization: Bearer abc123def456", "Authorization: Bearer [REDACTED:token]"),
        ("password=hunter2 next", "password=[REDACTED:password] next"),
        ("PASSWORD: s3cr3t!", "PASSWORD: [REDACTED:password]"),
        ('{"password": "p a s s"}', '{"password": [REDACTED:password]}'),
        ("DB_PASSWORD=x1;", "DB_PASSWORD=[REDACTED:password];"),
        ("mysql --password='two words'", "mysql --password=[REDACTED:password]"),
        ("mail ana.lopez+ci@example.co.uk now", "mail [REDACTED:email] now"),
        (f"a {JWT} b", "a [REDACTED:jwt] b"),
        (f"Bearer {JWT}", "Bearer [REDACTED:jwt]"),
        (f"before\n{PEM}\nafter", "before\n[REDACTED:private-key]\nafter"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n(truncated", "[REDACTED:private-key]"),
    ],
)
def test_redacts(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "git commit -m 'sk: short'",
        "uv run check && make test",
        "see L-0007 in LESSONS/INDEX.md, head -40",
        "the skeleton sk-short is not a key",
        "user@host is not an address without a domain",
        "a password is required",
    ],
)
def test_leaves_ordinary_text_alone(text: str) -> None:
    assert redact(text) == text


def test_idempotent_and_several_findings() -> None:
    text = f"a@b.io sk-{'x' * 24} password=pw Bearer tok123456 {JWT} AKIAABCDEFGHIJKLMNOP"
    once = redact(text)
    assert redact(once) == once
    for secret in ("a@b.io", "x" * 24, "=pw", "tok123456", JWT, "AKIAABCDEFGHIJKLMNOP"):
        assert secret not in once
    assert once.count("[REDACTED:") == 6
