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


def pairwise_matrix(models: dict[str, dict[str, bool]], *, alpha: float = tests.ALPHA) -> dict[str, Any]:
    """Holm-adjusted p-values for every pair of models that share samples.

    Returns {"models": [...], "pairs": {(m1, m2): {...}}} keyed both ways round.
    """
    names = list(models)
    raw: list[tuple[str, str, float, int, int, int]] = []
    for m1, m2 in combinations(names, 2):
        p, n, only1, only2 = mcnemar_exact(models[m1], models[m2])
        if n:
            raw.append((m1, m2, p, n, only1, only2))
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    reject, adjusted = tests.holm([r[2] for r in raw], alpha)
    for (m1, m2, p, n, only1, only2), rej, adj in zip(raw, reject, adjusted, strict=True):
        cell = {"p": p, "p_holm": adj, "significant": rej, "n": n}
        pairs[(m1, m2)] = {**cell, "wins": only1, "losses": only2}
        pairs[(m2, m1)] = {**cell, "wins": only2, "losses": only1}
    return {"models": names, "pairs": pairs, "alpha": alpha}
