"""Cluster bootstrap confidence intervals for an accuracy.

Edited variants of one source image are correlated (same scene, same answer), so resampling rows would
understate the uncertainty. We resample whole clusters (source images) with replacement instead.
"""

from __future__ import annotations

import numpy as np


def cluster_bootstrap_ci(
    correct: np.ndarray,
    clusters: np.ndarray,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile CI of mean(correct) resampling clusters with replacement; None when there are no rows.

    `correct` is a boolean/0-1 array per row, `clusters` a cluster code per row. A resample only depends
    on how many times each kind of cluster (its hits and size) is drawn, and those counts are
    multinomial, so we draw them directly: exact, and O(resamples x kinds) instead of O(resamples x
    clusters). Deterministic for a given seed, so a submission always gets the same interval.
    """
    correct = np.asarray(correct, dtype=np.float64)
    clusters = np.asarray(clusters)
    if correct.size == 0:
        return None
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    _, codes = np.unique(clusters, return_inverse=True)
    hits = np.bincount(codes, weights=correct).round().astype(np.int64)
    sizes = np.bincount(codes).astype(np.int64)
    kinds, per_kind = np.unique(np.stack([hits, sizes], axis=1), axis=0, return_counts=True)
    n_clusters = int(per_kind.sum())
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n_clusters, per_kind / n_clusters, size=n_resamples)  # resamples x kinds
    stats = (draws @ kinds[:, 0]) / (draws @ kinds[:, 1])
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
