"""Paired tests: exact McNemar, Wilcoxon signed-rank, Holm; degenerate inputs do not crash."""

import numpy as np
import pytest
from scipy.stats import binomtest, wilcoxon

from eval_kit.scoring.significance import compare_task, holm, mcnemar_exact, wilcoxon_signed_rank


def test_mcnemar_exact_matches_binomial_on_discordant_pairs():
    a = np.array([True] * 30 + [False] * 5 + [True] * 40 + [False] * 25)
    b = np.array([False] * 30 + [True] * 5 + [True] * 40 + [False] * 25)
    stat, p, counts = mcnemar_exact(a, b)
    assert counts == {"both_correct": 40, "only_a_correct": 30, "only_b_correct": 5, "both_wrong": 25}
    assert stat == 5
    assert p == pytest.approx(binomtest(5, 35, 0.5).pvalue)
    assert p < 0.001


def test_mcnemar_no_discordant_pairs():
    a = [True, False, True]
    stat, p, counts = mcnemar_exact(a, a)
    assert stat is None and p == 1.0
    assert counts["only_a_correct"] == counts["only_b_correct"] == 0


def test_wilcoxon_matches_scipy_and_handles_all_zero():
    rng = np.random.default_rng(0)
    x = rng.random(200)
    y = x - 0.05 + 0.1 * rng.random(200) * (rng.random(200) > 0.5)
    stat, p, detail = wilcoxon_signed_rank(x, y)
    assert p == pytest.approx(wilcoxon(x, y).pvalue)
    assert detail["nonzero_differences"] == 200
    stat, p, detail = wilcoxon_signed_rank(x, x)
    assert stat is None and p == 1.0 and detail["nonzero_differences"] == 0


def test_holm_adjustment():
    reject, adjusted = holm([0.01, 0.04, 0.03])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06])
    assert reject == [True, False, False]


def test_compare_task_three_runs():
    rng = np.random.default_rng(1)
    truth_good = rng.random(500) < 0.6
    runs = {"a": truth_good, "b": rng.random(500) < 0.3, "c": truth_good.copy()}
    results = compare_task("category", runs, "mcnemar_exact")
    assert [(r.run_a, r.run_b) for r in results] == [("a", "b"), ("a", "c"), ("b", "c")]
    by_pair = {(r.run_a, r.run_b): r for r in results}
    assert by_pair[("a", "b")].significant and by_pair[("b", "c")].significant
    assert by_pair[("a", "c")].p_value == 1.0 and not by_pair[("a", "c")].significant
    assert by_pair[("a", "c")].note == "no discordant pairs"
    assert all(r.p_holm >= r.p_value for r in results)


def test_compare_task_rejects_bad_input():
    with pytest.raises(ValueError):
        compare_task("x", {"a": [True]}, "mcnemar_exact")
    with pytest.raises(ValueError):
        compare_task("x", {"a": [True], "b": [True, False]}, "mcnemar_exact")
    with pytest.raises(ValueError):
        compare_task("x", {"a": [1.0], "b": [1.0]}, "t_test")
