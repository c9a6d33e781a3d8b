"""Redact secrets and personal data from text quoted out of transcripts.

    redact("curl -H 'Authorization: Bearer abc.def.ghi' -d password=hunter2")
    # "curl -H 'Authorization: Bearer [REDACTED:token]' -d password=[REDACTED:password]"

Each finding is replaced by ``[REDACTED:<kind>]``; the rest of the text is unchanged and
``redact`` is idempotent (redacting twice gives the same text). Kinds: private-key, jwt,
api-key, aws-key, github-token, slack-token, token (Bearer), password, email.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["PATTERNS", "redact"]


def _mark(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# Order matters: whole blocks first (a PEM key may contain anything), then tokens with a
# recognisable shape, then the generic key=value and e-mail forms.
PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
            r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|.*\Z)",
            re.DOTALL,
        ),
    ),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}")),
    ("api-key", re.compile(r"\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{16,}")),
    ("aws-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
]

_BEARER = re.compile(r"(\bBearer\s+)(?!\[REDACTED:)[A-Za-z0-9._~+/=-]{6,}", re.IGNORECASE)
_PASSWORD = re.compile(
    r"""((?<![A-Za-z])(?:password|passwd|pwd)\b["']?\s*[:=]\s*)(?!\[REDACTED:)("[^"\n]*"|'[^'\n]*'|[^\s,;&"']+)""",
    re.IGNORECASE,
)
_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)


def _sub(kind: str) -> Callable[[re.Match[str]], str]:
    return lambda match: _mark(kind)


def redact(text: str) -> str:
    """``text`` with every API key, token, password, private key, JWT and e-mail address
    replaced by ``[REDACTED:<kind>]``."""
    if not text:
        return text
    for kind, pattern in PATTERNS:
        text = pattern.sub(_sub(kind), text)
    text = _BEARER.sub(lambda m: m.group(1) + _mark("token"), text)
    text = _PASSWORD.sub(lambda m: m.group(1) + _mark("password"), text)
    return _EMAIL.sub(_sub("email"), text)
