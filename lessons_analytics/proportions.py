"""Small-sample statistics of two proportions: the arithmetic behind ``effect``.

Everything here is exact or closed-form and uses the standard library only:

- ``wilson``: the Wilson score interval of one proportion (Wilson 1927), which stays inside
  [0, 1] and keeps its coverage at 0 or n successes, where the Wald interval collapses;
- ``newcombe``: the interval of a difference of two proportions from the two Wilson
  intervals (Newcombe 1998, method 10, the "hybrid score" interval);
- ``fisher_less``: the one-sided Fisher exact test that the first rate is lower than the
  second. Chosen over a Beta-binomial posterior because it needs no prior (with 3 or 4
  hits a prior decides the answer) and because it is exact at any sample size, so a
  verdict never rests on a normal approximation of a handful of cases;
- ``sessions_for_halving``: how many sessions a test at ``alpha`` needs to detect a rate
  falling to half of ``rate`` with the given power, by the arcsine (Cohen's h) normal
  approximation with ``rate`` taken as known. tests/test_proportions.py checks each
  against scipy and statsmodels.
"""

from __future__ import annotations

import math
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)  # two-sided 95 % intervals


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Lower and upper bound of the Wilson score interval of ``k / n``; None for n = 0."""
    if n <= 0:
        return None
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # at 0 or n successes the bound is exactly 0 or 1; rounding would leave 1e-17
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def newcombe(
    k1: int, n1: int, k2: int, n2: int, z: float = Z95
) -> tuple[float, float, float] | None:
    """``k2/n2 - k1/n1`` with its Newcombe hybrid score interval; None if a side is empty."""
    first, second = wilson(k1, n1, z), wilson(k2, n2, z)
    if first is None or second is None:
        return None
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = first, second
    diff = p2 - p1
    low = diff - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = diff + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return diff, low, high


def fisher_less(k1: int, n1: int, k2: int, n2: int) -> float | None:
    """One-sided Fisher exact p-value that rate 1 (``k1/n1``) is below rate 2.

    Given the margins, the number of successes in group 1 is hypergeometric; the p-value
    is the probability of ``k1`` or fewer. Integer arithmetic, so no rounding until the
    final division. None when a group is empty.
    """
    if n1 <= 0 or n2 <= 0:
        return None
    total, hits = n1 + n2, k1 + k2
    low = max(0, hits - n2)
    if k1 < low:
        return 0.0
    # P(X = x) is C(n1, x) C(n2, hits - x) / C(total, hits), the hits drawn from the two
    # groups, and also C(hits, x) C(total - hits, n1 - x) / C(total, n1), group 1 drawn from
    # the hits and the rest: the same fraction, so the same float (int / int rounds the
    # exact quotient once). The smaller draw has the smaller binomials: on D, 14,227
    # sessions before a lesson, 2,976 after and 122 hits make C(total, n1) some 3,400 digits
    # long and C(total, hits) some 300 (effect's 56 tests 25 -> 0.5 ms).
    if hits <= n1:
        part, rest, drawn = n1, n2, hits
    else:
        part, rest, drawn = hits, total - hits, n1
    # term(x) = C(part, x) C(rest, drawn - x), each from the one before by its ratio: the
    # division is exact (term(x + 1) is an integer), so the tail is the same integer as the
    # sum of the products, without two binomials per x
    term = math.comb(part, low) * math.comb(rest, drawn - low)
    tail = term
    for x in range(low, k1):
        term = term * (part - x) * (drawn - x) // ((x + 1) * (rest - drawn + x + 1))
        tail += term
    return min(1.0, tail / math.comb(total, drawn))


def sessions_for_halving(rate: float, alpha: float, power: float) -> int | None:
    """Sessions needed to detect ``rate`` falling to ``rate / 2`` (one-sided ``alpha``,
    given ``power``: the settings thresholds.effect_alpha and effect_power), with ``rate``
    known: n = ((z_alpha + z_power) / h)^2 where h = 2 asin(sqrt(rate)) - 2 asin(sqrt(rate / 2)).
    None when the rate is 0 (a halving of nothing cannot be seen) or not a rate."""
    if not 0 < rate <= 1:
        return None
    h = 2 * math.asin(math.sqrt(rate)) - 2 * math.asin(math.sqrt(rate / 2))
    z = NormalDist().inv_cdf(1 - alpha) + NormalDist().inv_cdf(power)
    return math.ceil((z / h) ** 2 - 1e-9)
