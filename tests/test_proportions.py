"""The statistics of ``proportions`` against scipy and statsmodels (independent code)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import fisher_exact
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    proportion_confint,
    proportion_effectsize,
)

from lessons_analytics.proportions import fisher_less, newcombe, sessions_for_halving, wilson

counts = st.integers(min_value=1, max_value=200).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
)


def test_wilson_by_hand() -> None:
    # 0/10: upper = z^2/(n+z^2) = 3.8415/13.8415 = 0.2775
    low, high = wilson(0, 10)  # type: ignore[misc]
    assert low == 0.0 and high == pytest.approx(0.27753, abs=1e-5)
    assert wilson(0, 0) is None


@settings(max_examples=200, deadline=None)
@given(counts)
def test_wilson_matches_statsmodels(kn: tuple[int, int]) -> None:
    k, n = kn
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert wilson(k, n) == pytest.approx((low, high), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(counts, counts)
def test_newcombe_matches_statsmodels(first: tuple[int, int], second: tuple[int, int]) -> None:
    (k1, n1), (k2, n2) = first, second
    low, high = confint_proportions_2indep(k2, n2, k1, n1, method="newcomb", compare="diff")
    diff, my_low, my_high = newcombe(k1, n1, k2, n2)  # type: ignore[misc]
    assert diff == pytest.approx(k2 / n2 - k1 / n1)
    assert (my_low, my_high) == pytest.approx((low, high), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(counts, counts)
def test_fisher_matches_scipy(first: tuple[int, int], second: tuple[int, int]) -> None:
    (k1, n1), (k2, n2) = first, second
    _, p = fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="less")
    assert fisher_less(k1, n1, k2, n2) == pytest.approx(p, rel=1e-9, abs=1e-12)


big_counts = st.integers(min_value=1, max_value=3000).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=min(n, 60)), st.just(n))
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(counts, big_counts), st.one_of(counts, big_counts))
def test_fisher_is_the_exact_fraction(first: tuple[int, int], second: tuple[int, int]) -> None:
    """The same float as the hypergeometric tail summed term by term as a fraction, rounded
    once: whichever draw (the hits, or group 1) the code sums over, with few hits or many."""
    (k1, n1), (k2, n2) = first, second
    hits = k1 + k2
    tail = sum(
        Fraction(math.comb(n1, x) * math.comb(n2, hits - x), math.comb(n1 + n2, hits))
        for x in range(max(0, hits - n2), k1 + 1)
    )
    assert fisher_less(k1, n1, k2, n2) == float(min(tail, Fraction(1)))


def test_fisher_by_hand() -> None:
    # 0/3 against 10/20: P(X = 0) = C(13,3)/C(23,3) = 286/1771
    assert fisher_less(0, 3, 10, 20) == pytest.approx(286 / 1771)
    assert fisher_less(0, 0, 1, 2) is None


@pytest.mark.parametrize("rate", [0.5, 0.25, 0.2, 0.1, 0.03, 0.9, 1.0])
def test_sessions_for_halving_matches_statsmodels(rate: float) -> None:
    h = proportion_effectsize(rate, rate / 2)
    # ratio=0: one sample, the rate before taken as known
    n = NormalIndPower().solve_power(h, alpha=0.05, power=0.8, ratio=0, alternative="larger")
    assert sessions_for_halving(rate, 0.05, 0.8) == math.ceil(n - 1e-9)


def test_sessions_for_halving_by_hand() -> None:
    # rate 0.5: h = 2 asin(sqrt .5) - 2 asin(sqrt .25) = 0.52360; (2.48647 / h)^2 = 22.55
    assert sessions_for_halving(0.5, 0.05, 0.8) == 23
    assert sessions_for_halving(0.0, 0.05, 0.8) is None
    assert sessions_for_halving(1.5, 0.05, 0.8) is None
