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
    chunk: int = 64,
) -> tuple[float, float] | None:
    """Percentile CI of mean(correct) resampling clusters; None when there are no rows.

    `correct` is a boolean/0-1 array per row, `clusters` an integer cluster code per row. Deterministic
    for a given seed, so the same submission always gets the same interval.
    """
    correct = np.asarray(correct, dtype=np.float64)
    clusters = np.asarray(clusters)
    if correct.size == 0:
        return None
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    _, codes = np.unique(clusters, return_inverse=True)
    hits = np.bincount(codes, weights=correct)
    sizes = np.bincount(codes).astype(np.float64)
    n_clusters = hits.size
    rng = np.random.default_rng(seed)
    stats = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, chunk):
        stop = min(start + chunk, n_resamples)
        draws = rng.integers(0, n_clusters, size=(stop - start, n_clusters))
        stats[start:stop] = hits[draws].sum(axis=1) / sizes[draws].sum(axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
