"""Secrets of every kind the redactor covers, to plant in transcripts and lessons.

Each value is fake but has the real shape. ``SECRETS`` maps a kind to (the text to plant,
the secret part that must never reach an output)."""

from __future__ import annotations

_PEM_BODY = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfnygWyF8PbnGy0AHB7MmFxl1SMeBRGWb1dq"
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

SECRETS: dict[str, tuple[str, str]] = {
    "aws-access-key": ("AWS_ACCESS_KEY_ID=AKIAQWERTYUIOPASDFGH", "AKIAQWERTYUIOPASDFGH"),
    "aws-secret-key": (
        "aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY1",
        "wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY1",
    ),
    "github-ghp": (
        "ghp_Zq8Xk2LmN4pR7sT1vW3yB5dF9hJ0cA6eG2iK",
        "Zq8Xk2LmN4pR7sT1vW3yB5dF9hJ0cA6eG2iK",
    ),
    "github-gho": (
        "gho_Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Df3Hj5",
        "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Df3Hj5",
    ),
    "github-ghs": (
        "ghs_Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc2Vb4",
        "Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc2Vb4",
    ),
    "github-pat": (
        "github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789",
        "11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789",
    ),
    "anthropic": (
        "ANTHROPIC_API_KEY=sk-ant-api03-Xy7Zq9Wv5Ut3Sr1Qp8On6Ml4Kj2Ih0Gf",
        "Xy7Zq9Wv5Ut3Sr1Qp8On6Ml4Kj2Ih0Gf",
    ),
    "openai": ("key sk-proj-Pl9Ok8Ij7Uh6Yg5Tf4Rd3Es2Wa1Qz0Xc", "Pl9Ok8Ij7Uh6Yg5Tf4Rd3Es2Wa1Qz0Xc"),
    "slack": ("xoxb-2468013579-1357924680-AbCdEfGhIjKlMnOpQrSt", "AbCdEfGhIjKlMnOpQrSt"),
    "stripe": ("sk_live_4eC39HqLyjWDarjtT1zdp7dcQ9", "4eC39HqLyjWDarjtT1zdp7dcQ9"),
    "google": ("AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    "jwt": (f"token={_JWT}", _JWT.split(".")[2]),
    "private-key": (
        f"-----BEGIN RSA PRIVATE KEY-----\n{_PEM_BODY}\n-----END RSA PRIVATE KEY-----",
        _PEM_BODY,
    ),
    "bearer": ("Authorization: Bearer Rt5Yu7Io9Pl2Kj4Hg6Fd8Sa0", "Rt5Yu7Io9Pl2Kj4Hg6Fd8Sa0"),
    "basic": ("Authorization: Basic YWRtaW46aHVudGVyMjAyNg==", "YWRtaW46aHVudGVyMjAyNg"),
    "x-api-key": (
        "curl -H 'X-Api-Key: Zx9Cv8Bn7Mm6Ll5Kk4Jj3' https://api.test",
        "Zx9Cv8Bn7Mm6Ll5Kk4Jj3",
    ),
    "password-env": ("PGPASSWORD=Tr0ub4dor3xyz psql -h db", "Tr0ub4dor3xyz"),
    "token-env": ("export DEPLOY_TOKEN=Dq4Wm8Zr2Np6Kv0Lb", "Dq4Wm8Zr2Np6Kv0Lb"),
    "secret-env": ("SESSION_SECRET=Hy7Gt5Fr3De1Sw9Aq", "Hy7Gt5Fr3De1Sw9Aq"),
    "url-credentials": ("psql postgres://admin:Pw9LocalOnly@localhost/app", "Pw9LocalOnly"),
}
