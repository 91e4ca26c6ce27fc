"""Pairwise significance matrices for the leaderboard, on top of `eval_kit.scoring.significance`.

Two models are compared on the samples both answered (their `per_sample` ids in common) with the
exact McNemar test of `eval_kit.scoring.significance` (only discordant pairs count, which is what
makes it paired), and the p-values of one matrix are Holm-adjusted together with its `holm`.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from eval_kit.scoring import significance as tests


def mcnemar_exact(a: dict[str, bool], b: dict[str, bool]) -> tuple[float, int, int, int]:
    """(p-value, n paired, a-only-right, b-only-right) of the exact McNemar test on the common ids."""
    common = [i for i in a if i in b]
    if not common:
        return 1.0, 0, 0, 0
    _, p, counts = tests.mcnemar_exact([a[i] for i in common], [b[i] for i in common])
    return p, len(common), counts["only_a_correct"], counts["only_b_correct"]


def pairwise_matrix(models: dict[str, dict[str, bool]], *, alpha: float = tests.ALPHA, cache: dict | None = None,
                    ids: dict[str, Any] | None = None) -> dict[str, Any]:
    """Holm-adjusted p-values for every pair of models that share samples.

    Returns {"models": [...], "pairs": {(m1, m2): {...}}} keyed both ways round. With `cache` and `ids`
    (model -> a key that changes whenever its outcomes do), each pair's exact test is computed once and kept
    in `cache`; the Holm adjustment is always done afresh over this matrix's pairs.
    """
    names = list(models)
    raw: list[tuple[str, str, float, int, int, int]] = []
    for m1, m2 in combinations(names, 2):
        key = (ids[m1], ids[m2]) if cache is not None and ids is not None else None
        if key is not None and key in cache:
            p, n, only1, only2 = cache[key]
        else:
            p, n, only1, only2 = mcnemar_exact(models[m1], models[m2])
            if key is not None:
                cache[key] = (p, n, only1, only2)
        if n:
            raw.append((m1, m2, p, n, only1, only2))
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    reject, adjusted = holm([r[2] for r in raw], alpha)
    for (m1, m2, p, n, only1, only2), rej, adj in zip(raw, reject, adjusted, strict=True):
        cell = {"p": p, "p_holm": adj, "significant": rej, "n": n}
        pairs[(m1, m2)] = {**cell, "wins": only1, "losses": only2}
        pairs[(m2, m1)] = {**cell, "wins": only2, "losses": only1}
    return {"models": names, "pairs": pairs, "alpha": alpha}


def holm(p_values: list[float], alpha: float = tests.ALPHA) -> tuple[list[bool], list[float]]:
    """Holm's step-down adjustment, the same numbers as `eval_kit.scoring.significance.holm` (statsmodels'
    `multipletests(method="holm")`, checked in tests). Done here with numpy because multipletests calls
    `gc.collect()` on every Holm call, which costs the app 0.1-0.6 s per matrix with its results in memory."""
    import numpy as np

    if not p_values:
        return [], []
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="mergesort")
    scaled = p[order] * np.arange(len(p), 0, -1)
    adjusted_sorted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    adjusted = np.empty_like(adjusted_sorted)
    adjusted[order] = adjusted_sorted
    return [bool(a <= alpha) for a in adjusted], [float(a) for a in adjusted]
