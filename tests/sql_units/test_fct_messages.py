"""fct_messages: streamed assistant pieces merged into one response, with its usage and model."""

from __future__ import annotations

import pytest

from tests.sql_units.sqlunit import Case, check, check_mutants

MODEL = "fct_messages"
BIG = 9_000_000_000_000_000_000  # two of these overflow a bigint sum (max 9.22e18)


def piece(
    line_no: int, message: str | None, model: str | None, tokens_in: int, tokens_out: int
) -> dict[str, object]:
    """One assistant line of session S's main run (file 1), request req-<message>."""
    return {
        "file_id": 1,
        "line_no": line_no,
        "session_id": "S",
        "agent_key": "main",
        "runtime": "claude",
        "role": "assistant",
        "message_id": message,
        "request_id": None if message is None else f"req-{message}",
        "model": model,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "ts": f"2026-11-02 10:00:{line_no:02d}+00",
    }


def message(key: str, model: str | None, tokens_in: int, tokens_out: int, pieces: int) -> dict:
    return {
        "agent_run_id": "S/main",
        "message_key": key,
        "role": "assistant",
        "model": model,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "pieces": pieces,
    }


CASES = [
    Case(
        "each response takes the model of its largest piece that names one",
        given={
            "int_events_deduplicated": [
                # m1: the largest piece (60 tokens) names no model; of those that do, the
                # largest is claude-a (30), though claude-b is the greater name
                piece(1, "m1", "claude-b", 10, 5),
                piece(2, "m1", None, 10, 50),
                piece(3, "m1", "claude-a", 10, 20),
                # m2: two pieces of 10 tokens: the tie goes to the greater name
                piece(4, "m2", "claude-a", 5, 5),
                piece(5, "m2", "claude-z", 4, 6),
                # m3: no piece names a model
                piece(6, "m3", None, 1, 1),
                # m4: sums beyond a bigint, compared exactly: 2 x BIG beats BIG + 1
                piece(7, "m4", "claude-a", BIG, BIG),
                piece(8, "m4", "claude-b", BIG, 1),
                # a line without a message id is a message of its own, keyed by file:line
                piece(9, None, "claude-a", 3, 4),
                # a run dim_agent_runs dropped (a warm-up) has no messages
                {**piece(10, "m5", "claude-a", 1, 1), "agent_key": "ghost"},
            ],
            "dim_agent_runs": [{"session_id": "S", "agent_key": "main"}],
        },
        # worked out by hand: usage is the max of each count over the pieces
        expected=[
            message("m1", "claude-a", 10, 50, 3),
            message("m2", "claude-z", 5, 6, 2),
            message("m3", None, 1, 1, 1),
            message("m4", "claude-a", BIG, BIG, 2),
            message("1:9", "claude-a", 3, 4, 1),
        ],
    ),
]
MUTANTS = [
    ("filter (where model is not null)", ""),  # m1 would take the unnamed piece: null
    ("(max({", "(min({"),  # m1 claude-b, m2 claude-a
    # the name before the tokens: m1 claude-b
    (
        "'tokens': coalesce(input_tokens, 0)::decimal(38, 0) + coalesce(output_tokens, 0),"
        " 'model': model",
        "'model': model, 'tokens': coalesce(input_tokens, 0)::decimal(38, 0)"
        " + coalesce(output_tokens, 0)",
    ),
    ("coalesce(input_tokens, 0)::decimal(38, 0)", "coalesce(input_tokens, 0)"),  # m4 overflows
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_model(case: Case) -> None:
    check(MODEL, case)


def test_mutants_fail() -> None:
    check_mutants(MODEL, CASES, MUTANTS)
