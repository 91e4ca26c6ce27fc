"""Pairwise significance between models: exact McNemar on paired per-sample correctness, Holm-adjusted.

Two models are compared on the samples both answered (their `per_sample` ids in common). The test
only looks at discordant pairs (one right, the other wrong), which is what makes it paired.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any


def mcnemar_exact(a: dict[str, bool], b: dict[str, bool]) -> tuple[float, int, int, int]:
    """(p-value, n paired, a-only-right, b-only-right) of the exact McNemar test."""
    from statsmodels.stats.contingency_tables import mcnemar

    common = [i for i in a if i in b]
    both = sum(a[i] and b[i] for i in common)
    only_a = sum(a[i] and not b[i] for i in common)
    only_b = sum(b[i] and not a[i] for i in common)
    neither = len(common) - both - only_a - only_b
    if only_a + only_b == 0:
        return 1.0, len(common), 0, 0
    result = mcnemar([[both, only_a], [only_b, neither]], exact=True)
    return float(result.pvalue), len(common), only_a, only_b


def pairwise_matrix(models: dict[str, dict[str, bool]], *, alpha: float = 0.05) -> dict[str, Any]:
    """Holm-adjusted p-values for every pair of models that share samples.

    Returns {"models": [...], "pairs": {(m1, m2): {...}}} keyed both ways round.
    """
    from statsmodels.stats.multitest import multipletests

    names = list(models)
    raw: list[tuple[str, str, float, int, int, int]] = []
    for m1, m2 in combinations(names, 2):
        p, n, only1, only2 = mcnemar_exact(models[m1], models[m2])
        if n:
            raw.append((m1, m2, p, n, only1, only2))
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    if raw:
        reject, adjusted, _, _ = multipletests([r[2] for r in raw], alpha=alpha, method="holm")
        for (m1, m2, p, n, only1, only2), rej, adj in zip(raw, reject, adjusted, strict=True):
            cell = {"p": p, "p_holm": float(adj), "significant": bool(rej), "n": n}
            pairs[(m1, m2)] = {**cell, "wins": only1, "losses": only2}
            pairs[(m2, m1)] = {**cell, "wins": only2, "losses": only1}
    return {"models": names, "pairs": pairs, "alpha": alpha}
