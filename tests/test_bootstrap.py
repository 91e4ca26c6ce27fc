"""The cluster bootstrap: deterministic, covers the estimate, and wider than a row bootstrap on correlated data."""

import numpy as np

from eval_kit.scoring.bootstrap import cluster_bootstrap_ci


def test_deterministic_and_contains_mean():
    rng = np.random.default_rng(0)
    correct = rng.random(2000) < 0.4
    clusters = np.arange(2000) // 10
    a = cluster_bootstrap_ci(correct, clusters, seed=1)
    b = cluster_bootstrap_ci(correct, clusters, seed=1)
    assert a == b
    assert a[0] < correct.mean() < a[1]


def test_perfectly_correlated_clusters_give_wider_interval():
    # every cluster of 20 rows is all right or all wrong: effective sample size is 100, not 2000
    rng = np.random.default_rng(0)
    per_cluster = rng.random(100) < 0.5
    correct = np.repeat(per_cluster, 20)
    clustered = cluster_bootstrap_ci(correct, np.repeat(np.arange(100), 20))
    rowwise = cluster_bootstrap_ci(correct, np.arange(2000))
    assert (clustered[1] - clustered[0]) > 3 * (rowwise[1] - rowwise[0])
    # binomial theory for 100 independent clusters: half-width about 1.96 * sqrt(.25 / 100) = 0.098
    assert 0.07 < (clustered[1] - clustered[0]) / 2 < 0.13


def test_empty_and_constant():
    assert cluster_bootstrap_ci(np.array([]), np.array([])) is None
    assert cluster_bootstrap_ci(np.ones(50), np.arange(50)) == (1.0, 1.0)
