"""The needles of ``redact.RULES`` only skip work: ``redact`` gives what running every rule
on every text gives, ``redact_tree`` what redacting each string on its own gives, and
``redact_json`` of a JSON text what ``redact_tree`` gives of its tree."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_analytics.redact import RULES, Rule, redact, redact_json, redact_tree

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


# ---------------------------------------------------------------- every match holds its needles

# ASCII texts: only those are skipped by their needles (a non-ASCII text runs every rule)
_ASCII = st.characters(codec="ascii")


@pytest.mark.parametrize("rule", RULES, ids=[f"{i}-{r.kind}" for i, r in enumerate(RULES)])
def test_every_match_of_a_rule_holds_a_needle_of_each_group(rule: Rule) -> None:
    # texts the pattern matches, generated from the pattern itself: a rule added (or a
    # pattern widened) with a match that misses its needles fails here, instead of being
    # skipped by ``redact`` and ``redact_json`` on such a text
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(rule.pattern, alphabet=_ASCII))
    def check(text: str) -> None:
        found = rule.pattern.search(text)
        assert found is not None
        hay = found.group().lower() if rule.folded else found.group()
        for group in rule.needles:
            assert any(needle in hay for needle in group), (rule.kind, text, group)

    check()


def test_needles_are_written_as_they_are_in_json() -> None:
    # redact_json looks for the needles in the bytes orjson writes: orjson escapes only
    # the quote, the backslash and the control characters, and no needle holds one
    escaped = {'"', "\\", *map(chr, range(0x20))}
    for code in range(0x110000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF or char in escaped:
            continue
        assert orjson.dumps(char) == b'"' + char.encode() + b'"', hex(code)
    for rule in RULES:
        for group in rule.needles:
            for needle in group:
                assert needle.isascii() and not set(needle) & escaped, needle


# ---------------------------------------------------------------- redact_json


def _redacted_tree(encoded: bytes) -> object:
    return redact_tree(orjson.loads(encoded))


_TEXTS = st.lists(st.sampled_from(PIECES), max_size=6).map("".join)
_TREES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | _TEXTS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXTS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=1000, deadline=None)
@given(_TREES)
def test_redact_json_equals_walking_the_tree(tree: object) -> None:
    for option in (0, orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS):  # --json's, data.json's
        encoded = orjson.dumps(tree, option=option)
        assert redact_json(encoded) == _redacted_tree(encoded)


@pytest.mark.parametrize(
    "tree",
    [
        {"cost_tokens_per_week": 1.0, "path": "/a/b-api/c"},  # needles, nothing to redact
        {"note": "token=abc123def"},  # a value redacted
        {"token=abc123def": 1, "token=[REDACTED:secret]": 2},  # two keys become one
        {"q": 'say "password=hunter2"\n'},  # escaped, redacted
        {"q": 'say "hello"\n', "k": "x-api-key"},  # escaped, a needle, nothing redacted
        {"q": "pa\u017f\u017fword=hunter2"},  # non-ASCII: every rule runs
        {"q": "caf\u00e9", "r": "plain"},
        ["a@b.co", "a@b"],
        "",
    ],
)
def test_redact_json_cases(tree: object) -> None:
    encoded = orjson.dumps(tree)
    assert redact_json(encoded) == _redacted_tree(encoded)
    assert orjson.dumps(redact_json(encoded)) == orjson.dumps(_redacted_tree(encoded))


def test_a_rule_is_compiled_where_it_first_runs() -> None:
    # importing redact compiles no rule, nor does a text without a needle: most documents
    # hold none, and compiling every rule was 6-7 ms of each command's start
    script = (
        "from lessons_analytics.redact import RULES, redact\n"
        "def compiled(): return [r.kind for r in RULES if 'pattern' in r.__dict__]\n"
        "assert compiled() == [], compiled()\n"
        "assert redact('/home/me/project/src/app.py') == '/home/me/project/src/app.py'\n"
        "assert compiled() == [], compiled()\n"
        "assert redact('AKIAABCDEFGHIJKLMNOP') == '[REDACTED:aws-key]'\n"
        "print(sorted(set(compiled())))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['aws-key']"
