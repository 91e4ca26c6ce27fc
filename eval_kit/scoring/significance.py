"""Paired significance tests between models on the same samples, generic across benchmarks.

Exact McNemar on per-sample correctness, Wilcoxon signed-rank on per-sample scores, Holm correction
across the pairwise comparisons of one task (BD-HazardVLM paper, section 5). The degenerate cases a
small or collapsed run produces (no discordant pairs, all-zero differences) return p = 1 instead of
raising, with a note saying why.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

ALPHA = 0.05


@dataclass
class PairTest:
    """One pairwise comparison: which runs, the test, its statistic, raw and Holm-adjusted p-values."""

    task: str
    run_a: str
    run_b: str
    test: str
    statistic: float | None
    p_value: float
    p_holm: float | None = None
    significant: bool | None = None
    score_a: float | None = None
    score_b: float | None = None
    detail: dict[str, Any] | None = None
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _paired(a: Sequence[Any], b: Sequence[Any], dtype) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=dtype), np.asarray(b, dtype=dtype)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired samples must be 1-D and of equal length, got {x.shape} and {y.shape}")
    if x.size == 0:
        raise ValueError("no paired samples")
    return x, y


def mcnemar_exact(correct_a: Sequence[bool], correct_b: Sequence[bool]) -> tuple[float | None, float, dict]:
    """Exact (binomial) McNemar test on paired correctness; returns (statistic, p, counts).

    The statistic is min(b, c), the smaller discordant count, as statsmodels reports it. With no
    discordant pairs the two runs cannot be told apart: p = 1.
    """
    from statsmodels.stats.contingency_tables import mcnemar

    x, y = _paired(correct_a, correct_b, bool)
    both = int(np.sum(x & y))
    only_a = int(np.sum(x & ~y))
    only_b = int(np.sum(~x & y))
    neither = int(np.sum(~x & ~y))
    counts = {"both_correct": both, "only_a_correct": only_a, "only_b_correct": only_b, "both_wrong": neither}
    if only_a + only_b == 0:
        return None, 1.0, counts
    res = mcnemar([[both, only_a], [only_b, neither]], exact=True)
    return float(res.statistic), float(min(1.0, res.pvalue)), counts


def wilcoxon_signed_rank(scores_a: Sequence[float], scores_b: Sequence[float]) -> tuple[float | None, float, dict]:
    """Two-sided Wilcoxon signed-rank test on paired scores (zero differences dropped, scipy's default).

    All-zero differences (identical scores) give p = 1 rather than scipy's error.
    """
    from scipy.stats import wilcoxon

    x, y = _paired(scores_a, scores_b, np.float64)
    diff = x - y
    nonzero = int(np.count_nonzero(diff))
    detail = {"nonzero_differences": nonzero, "mean_difference": float(diff.mean())}
    if nonzero == 0:
        return None, 1.0, detail
    res = wilcoxon(x, y, zero_method="wilcox", alternative="two-sided")
    return float(res.statistic), float(res.pvalue), detail


def holm(p_values: Sequence[float], alpha: float = ALPHA) -> tuple[list[bool], list[float]]:
    """Holm step-down adjustment (statsmodels `multipletests`); returns (reject, adjusted p)."""
    from statsmodels.stats.multitest import multipletests

    if not p_values:
        return [], []
    reject, adjusted, _, _ = multipletests(list(p_values), alpha=alpha, method="holm")
    return [bool(r) for r in reject], [float(p) for p in adjusted]


TESTS: dict[str, Callable[[Sequence[Any], Sequence[Any]], tuple[float | None, float, dict]]] = {
    "mcnemar_exact": mcnemar_exact,
    "wilcoxon_signed_rank": wilcoxon_signed_rank,
}


def compare_task(
    task: str, per_run: Mapping[str, Sequence[Any]], test: str, *, alpha: float = ALPHA
) -> list[PairTest]:
    """All pairwise tests of one task between runs (in the given order), Holm-corrected within the task.

    `per_run` maps a run name to its per-sample observations (bool correctness for McNemar, float scores
    for Wilcoxon), aligned on the same samples.
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    names = list(per_run)
    if len(names) < 2:
        raise ValueError("need at least two runs to compare")
    results = []
    for a, b in itertools.combinations(names, 2):
        statistic, p, detail = TESTS[test](per_run[a], per_run[b])
        note = None
        if statistic is None:
            note = "no discordant pairs" if test == "mcnemar_exact" else "all paired differences are zero"
        results.append(PairTest(
            task=task, run_a=a, run_b=b, test=test, statistic=statistic, p_value=p,
            score_a=float(np.mean(np.asarray(per_run[a], dtype=np.float64))),
            score_b=float(np.mean(np.asarray(per_run[b], dtype=np.float64))),
            detail=detail, note=note,
        ))
    reject, adjusted = holm([r.p_value for r in results], alpha)
    for r, rej, adj in zip(results, reject, adjusted, strict=True):
        r.p_holm, r.significant = adj, rej
    return results
