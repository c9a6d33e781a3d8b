"""Redact secrets and personal data from every text that leaves the warehouse.

    redact("curl -H 'Authorization: Bearer abc.def.ghi' -d password=hunter2")
    # "curl -H 'Authorization: Bearer [REDACTED:token]' -d password=[REDACTED:password]"

Each finding is replaced by ``[REDACTED:<kind>]``; the rest of the text is unchanged and
``redact`` is idempotent (redacting twice gives the same text). ``RULES`` is the one table
of what is found; ``KINDS`` lists its kinds.

Why a hand table and not a scanner's rule set: gitleaks' rules are Go regexes tuned for whole
files (each rule pairs a keyword with an entropy threshold and an allow-list) and
detect-secrets is a file scanner whose plugins report findings rather than rewrite text;
neither redacts in place, and neither recognises a token cut short by a truncated quote. The
token shapes below follow gitleaks' rules (``aws-access-token``, ``github-pat``,
``stripe-access-token``, ``gcp-api-key``, ``slack-*-token``, ``jwt``, ``private-key``).

Text quoted from a transcript is often cut (the warehouse keeps the first 300 characters of a
result, a quote is cut at a budget), so a token whose known prefix ends the text is redacted
however short its tail: a cut never lets the rest of a secret through.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "KINDS",
    "RULES",
    "CleanJson",
    "Rule",
    "cut",
    "encode_json",
    "first_needles",
    "redact",
    "redact_frame",
    "redact_json",
    "redact_tree",
]

_DONE = r"(?!\[REDACTED:)"
# A value after ``=``/``:``: a quoted string or a run up to a space or separator.
_VALUE = r"""("[^"\n]*"|'[^'\n]*'|[^\s,;&"'`]+)"""


def _mark(kind: str) -> str:
    return f"[REDACTED:{kind}]"


class _Source(NamedTuple):
    """A rule's regular expression and its flags, compiled where the rule first runs."""

    text: str
    flags: int = 0


@dataclass(frozen=True)
class Rule:
    """``pattern`` is replaced by ``[REDACTED:kind]``; with ``keep``, the pattern's group 1
    (the name of what follows: a header, a variable) is kept in front of the mark.
    ``pattern`` is ``source`` compiled when the rule first runs: most documents hold no
    needle and run no rule, and compiling every rule was 6-7 ms of each command's start.

    ``needles``: groups of literals; every match contains one literal of each group
    (lowercase and looked up in the lowered text when ``folded``, as for a case-insensitive
    pattern), so an ASCII text that misses a group is left as it is without running the
    pattern (the ``key=value`` rules need a name and a ``:`` or ``=``: a file path has none).
    Only ASCII texts are skipped: under IGNORECASE a pattern's ``s`` or ``k`` also matches
    non-ASCII letters (``ſ``, the Kelvin sign) that a lowered text does not show."""

    kind: str
    source: _Source
    keep: bool = False
    needles: tuple[tuple[str, ...], ...] = ()
    folded: bool = False

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source.text, self.source.flags)

    def apply(self, text: str) -> str:
        mark = _mark(self.kind)
        if self.keep:
            return self.pattern.sub(lambda m: m.group(1) + mark, text)
        return self.pattern.sub(mark, text)


def _token(prefix: str, body: str, least: int) -> str:
    """A prefixed token with at least ``least`` body characters, or any tail at the end of
    the text (a token cut by a truncation)."""
    return rf"{prefix}(?:{body}{{{least},}}|{body}*\Z)"


# Order matters: whole blocks first (a PEM key may contain anything), then tokens with a
# recognisable shape, then headers and key=value forms, then URL credentials and e-mail.
RULES: tuple[Rule, ...] = (
    Rule(
        "private-key",
        _Source(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
            re.DOTALL,
        ),
        needles=(("-----BEGIN ",),),
    ),
    Rule(
        "jwt",
        _Source(
            r"\beyJ[A-Za-z0-9_-]{4,}\.(?:[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}|"
            r"[A-Za-z0-9_-]*\.?[A-Za-z0-9_-]*\Z)"
        ),
        needles=(("eyJ",),),
    ),
    # Anthropic (sk-ant-…) and OpenAI (sk-…, sk-proj-…, sk-svcacct-…)
    Rule(
        "api-key",
        _Source(r"\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{16,}|\bsk-[\w-]{3,}\Z"),
        needles=(("sk-",),),
    ),
    Rule(
        "aws-key",
        _Source(
            r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])(?:[0-9A-Z]{16}\b|"
            r"[0-9A-Z]{2,15}\Z)"
        ),
        needles=(("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),),
    ),
    Rule(
        "github-token",
        _Source(
            r"\b"
            + _token("gh[pousr]_", "[A-Za-z0-9]", 20)
            + r"|\b"
            + _token("github_pat_", r"\w", 20)
        ),
        needles=(("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),),
    ),
    Rule(
        "slack-token",
        _Source(
            r"\b"
            + _token("xox[abposre]-", "[A-Za-z0-9-]", 10)
            + r"|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"
        ),
        needles=(("xox", "https://hooks.slack.com/services/"),),
    ),
    Rule(
        "stripe-key",
        _Source(
            r"\b"
            + _token("(?:sk|rk|pk)_(?:live|test)_", "[A-Za-z0-9]", 10)
            + r"|\b"
            + _token("whsec_", "[A-Za-z0-9]", 16)
        ),
        needles=(("_live_", "_test_", "whsec_"),),
    ),
    Rule(
        "google-api-key",
        _Source(r"\b" + _token("AIza", r"[\w-]", 30) + r"|\bya29\.[\w-]{20,}"),
        needles=(("AIza", "ya29."),),
    ),
    # AWS secret access key: 40 characters of base64 after its variable or config name.
    Rule(
        "aws-secret",
        _Source(
            r"""((?i:aws)\w*?(?i:secret)\w*["']?\s*[:=]\s*["']?)"""
            + _DONE
            + r"[A-Za-z0-9/+=]{20,}",
        ),
        keep=True,
        needles=(("aws",), ("secret",), (":", "=")),
        folded=True,
    ),
    Rule(
        "token",
        _Source(r"(\bBearer\s+)" + _DONE + r"[A-Za-z0-9._~+/=-]{6,}", re.IGNORECASE),
        keep=True,
        needles=(("bearer",),),
        folded=True,
    ),
    # Basic credentials are base64: a run with a digit, ``+``, ``/`` or ``=`` (not "Basic usage")
    Rule(
        "token",
        _Source(
            r"(\bBasic\s+)" + _DONE + r"(?=[A-Za-z0-9+/]*[0-9+/=])"
            r"[A-Za-z0-9+/]{8,}={0,2}",
            re.IGNORECASE,
        ),
        keep=True,
        needles=(("basic",),),
        folded=True,
    ),
    Rule(
        "token",
        _Source(
            r"""(\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|"""
            r"""x-goog-api-key|authorization|proxy-authorization|cookie)["']?\s*[:=]\s*["']?"""
            r"""(?:(?:bearer|basic|token|digest)\s+)?+)""" + _DONE + r"""[^\s"',;]+""",
            re.IGNORECASE,
        ),
        keep=True,
        needles=(
            (
                "api-key",
                "auth-token",
                "access-token",
                "private-token",
                "authorization",
                "cookie",
            ),
            (":", "="),
        ),
        folded=True,
    ),
    # Any name holding PASSWORD/PASSWD (PGPASSWORD=, DB_PASSWORD=, --password=, "password":)
    Rule(
        "password",
        _Source(
            r"""(\b[\w.-]*(?:password|passwd)\w*["']?\s*[:=]\s*)""" + _DONE + _VALUE,
            re.IGNORECASE,
        ),
        keep=True,
        needles=(("password", "passwd"), (":", "=")),
        folded=True,
    ),
    # *_TOKEN=, *_SECRET=, *_API_KEY= and their lowercase config forms (not "max_tokens: 5")
    Rule(
        "secret",
        _Source(
            r"""(\b[\w.-]*(?:token|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key"""
            r"""|client[_-]?secret|credentials?)(?:_\w+)?\b["']?\s*[:=]\s*)""" + _DONE + _VALUE,
            re.IGNORECASE,
        ),
        keep=True,
        # the names' literals as the pattern spells them (``api`` alone is in every path
        # of a project named ...-api, where this pattern backtracks through each segment)
        needles=(
            (
                "token",
                "secret",
                "apikey",
                "api_key",
                "api-key",
                "accesskey",
                "access_key",
                "access-key",
                "privatekey",
                "private_key",
                "private-key",
                "credential",
            ),
            (":", "="),
        ),  # fmt: skip
        folded=True,
    ),
    Rule(
        "password",
        _Source(r"""(\s(?:-u|--user)\s+["']?[^\s:"'@]+:)""" + _DONE + r"""[^\s"'@]+"""),
        keep=True,
        needles=(("-u",), (":",)),
    ),
    # scheme://user:password@host, any host (localhost, an IP, a name without a TLD)
    Rule(
        "credentials",
        _Source(
            r"(\b[A-Za-z][A-Za-z0-9+.-]*://)[^\s:/@\"'<>]+:"
            r"(?:[^\s/@\"'<>]+(?=@)|(?![0-9]*\Z)[^\s/@\"'<>]+\Z)"  # or cut before the @
        ),
        keep=True,
        needles=(("://",),),
    ),
    Rule(
        "email",
        _Source(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
        needles=(("@",),),
    ),
)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(rule.kind for rule in RULES))

# Any first needle of any rule, lowered: an ASCII text whose lowered form holds none of them
# can match no rule (a literal in a text is still in the lowered text), and is returned
# after one search instead of seventeen needle tests (most strings of a document: ids,
# times, paths).
_FIRST_NEEDLES = sorted({n.lower() for rule in RULES for n in rule.needles[0]})
_ANY_NEEDLE = re.compile("|".join(map(re.escape, _FIRST_NEEDLES)))
# the same as the bytes of a JSON text (ASCII), each looked for with its own ``in``: one
# alternation of ``re`` searches a megabyte several times slower
_FIRST_NEEDLE_BYTES = tuple(n.encode("ascii") for n in _FIRST_NEEDLES)


def first_needles() -> tuple[str, ...]:
    """Every rule's first needles, lowered: an ASCII text whose lowered form holds none of
    them is one that ``redact`` returns as it is."""
    return tuple(_FIRST_NEEDLES)


def redact(text: str) -> str:
    """``text`` with every secret of ``RULES`` (API keys, tokens, passwords, private keys,
    JWTs, URL credentials, e-mail addresses) replaced by ``[REDACTED:<kind>]``."""
    if not text:
        return text
    if not text.isascii():
        for rule in RULES:
            text = rule.apply(text)
        return text
    lowered = text.lower()
    if _ANY_NEEDLE.search(lowered) is None:
        return text
    for rule in RULES:
        hay = lowered if rule.folded else text
        if not all(any(needle in hay for needle in group) for group in rule.needles):
            continue
        found = rule.apply(text)
        if found != text:
            text, lowered = found, found.lower()
    return text


def cut(text: str | None, limit: int, mark: str = "…") -> str:
    """``text`` redacted, then cut to at most ``limit`` characters (``mark`` at the cut):
    redaction first, so that a cut never splits a secret out of its pattern."""
    clean = redact(text or "")
    if len(clean) <= limit:
        return clean
    return clean[: max(limit - len(mark), 0)] + mark


def redact_tree(value: Any, _done: dict[str, str] | None = None) -> Any:
    """Every string in a JSON-like tree (dicts, lists, tuples) redacted; keys included.
    Each distinct string is redacted once (``_done``): a document repeats its keys, paths
    and ids thousands of times (``effect --json`` on a large warehouse: 250k strings, 22k
    distinct)."""
    done = {} if _done is None else _done
    if isinstance(value, str):
        clean = done.get(value)
        if clean is None:
            clean = done[value] = redact(value)
        return clean
    if isinstance(value, dict):
        return {redact_tree(k, done): redact_tree(v, done) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_tree(v, done) for v in value]
    return value


def redact_json(encoded: bytes) -> Any:
    """``redact_tree(orjson.loads(encoded))`` of a JSON text ``encoded`` by orjson (indented
    or not), without walking the tree when no string in it can change (``_changes``)."""
    tree = orjson.loads(encoded)
    return redact_tree(tree) if _changes(encoded) else tree


class CleanJson:
    """A value of a document already written as JSON text: the bytes orjson's
    ``OPT_INDENT_2`` writes for it where it stands in the document (its indentation), every
    string in it one that ``redact`` leaves as it is. ``encode_json`` puts it in as it is
    (``effect --json``'s evidence rows, which DuckDB writes: 10k rows turned into Python
    objects, encoded, scanned and decoded were half of that command's time). Not a
    dataclass: orjson would write a dataclass as an object of its fields."""

    __slots__ = ("text",)

    def __init__(self, text: bytes) -> None:
        self.text = text


def encode_json(document: object) -> bytes:
    """``document`` as the indented JSON text of ``redact_json(orjson.dumps(document))``:
    every string redacted. When no string can change (``_changes``), the document is
    encoded once as it is, not decoded again: orjson writes a value and the value it reads
    back from its own text alike. Its ``CleanJson`` values are left out of the scan (their
    strings are known clean) and written as their text."""
    options = orjson.OPT_NON_STR_KEYS
    skeleton = orjson.dumps(document, default=_unseen, option=options)
    options |= orjson.OPT_INDENT_2
    if not _changes(skeleton):
        return orjson.dumps(document, default=_fragment, option=options)
    whole = orjson.dumps(document, default=_fragment, option=orjson.OPT_NON_STR_KEYS)
    return orjson.dumps(redact_tree(orjson.loads(whole)), option=options)


def _unseen(value: object) -> None:
    if isinstance(value, CleanJson):
        return None
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _fragment(value: object) -> orjson.Fragment:
    if isinstance(value, CleanJson):
        return orjson.Fragment(value.text)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _changes(encoded: bytes) -> bool:
    """Whether ``redact_tree`` may change a string of the JSON text ``encoded`` by orjson
    (indented or not); False only when it changes none.

    Why that is exact: ``redact`` returns an ASCII string whose lowered form holds no first
    needle (``_ANY_NEEDLE``) as it is. orjson writes a string as its UTF-8 bytes between
    quotes, escaping only ``"``, ``\\`` and the control characters, none of which is in a
    needle (tests/test_redact_needles.py holds both), so a string holding a needle or a
    non-ASCII character shows it between two quotes of the text. Only the strings showing
    one are decoded and redacted (``effect --json`` on a large warehouse: 250k strings, a
    walk of the tree three times as long as decoding and encoding them)."""
    pieces = list(set(encoded.split(b'"')))  # a document repeats its keys, ids and times
    lowered = b"\0".join(pieces).lower()
    found = [needle for needle in _FIRST_NEEDLE_BYTES if needle in lowered]
    if not found and encoded.isascii():
        return False
    if b"\\" in encoded:
        # something was escaped: a string may span pieces, so read each literal
        pieces = list(set(_JSON_STRING.findall(encoded)))
        lowered = b"\0".join(pieces).lower()
    # orjson escapes a NUL, so none is in a piece: piece i starts at starts[i] of lowered
    starts = [0, *accumulate(len(piece) + 1 for piece in pieces)]
    candidates: set[int] = set()
    for needle in found:  # distinct pieces: a needle is in few of them
        at = lowered.find(needle)
        while at != -1:
            i = bisect_right(starts, at) - 1
            candidates.add(i)
            at = lowered.find(needle, starts[i + 1])
    if not encoded.isascii():
        candidates.update(i for i, piece in enumerate(pieces) if not piece.isascii())
    for i in sorted(candidates):
        # without a backslash nothing was escaped: a piece is a string's own UTF-8 bytes
        # (or what lies between two strings, which holds no needle: numbers, punctuation,
        # true, false, null and the indentation, whose newline is no string's)
        try:
            text = orjson.loads(b'"' + pieces[i] + b'"')
        except orjson.JSONDecodeError:
            return True
        if redact(text) != text:
            return True
    return False


# a string literal of a JSON text, its content in group 1 (outside a literal a JSON text
# has no quote, so a search from the start steps from one literal to the next)
_JSON_STRING = re.compile(rb'"([^"\\]*(?:\\.[^"\\]*)*)"', re.DOTALL)


def redact_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """A Polars frame with every string column redacted (other columns unchanged)."""
    import polars as pl  # here: `ingest --json` redacts its document without Polars

    strings = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    if not strings:
        return frame
    fn: Callable[[str], str] = redact
    return frame.with_columns(
        pl.col(name).map_elements(fn, return_dtype=pl.String, skip_nulls=True) for name in strings
    )
