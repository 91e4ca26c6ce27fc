"""Rebuild the paper's totals from its per-scenario and per-category accuracies by scoring constructed predictions."""

import numpy as np
import pytest

from eval_kit.movsafebench import spec
from eval_kit.movsafebench.scoring import compute_scores
from eval_kit.testing.synthetic_references import table2_references, wrong_answer

# Paper table 3: No edit, Static, Motion, Intrusion, Distance, Total.
TABLE3 = {
    "InternVL3.5": (54.8, 44.9, 25.5, 42.5, 39.5, 40.7),
    "LLaVA-NeXT-7B": (50.3, 37.2, 32.6, 37.7, 35.8, 36.5),
    "LLaVA-NeXT-13B": (63.5, 62.1, 2.0, 58.5, 48.6, 50.8),
    "PaliGemma2": (46.0, 28.9, 10.6, 29.6, 24.6, 25.9),
    "Phi4": (60.2, 53.8, 14.1, 47.7, 38.5, 44.3),
    "Qwen2.5-VL-7B": (53.0, 38.8, 55.8, 43.8, 32.9, 41.5),
    "Qwen2.5-VL-32B": (61.1, 49.8, 33.1, 64.8, 41.5, 50.3),
}
# Paper table 4: the 13 categories, then Norm., Anom., All.
TABLE4 = {
    "InternVL3.5": (43.1, 35.5, 36.4, 50.8, 51.1, 48.4, 49.2, 38.7, 35.6, 37.7, 37.8, 36.8, 38.1, 40.6, 40.8, 40.7),
    "LLaVA-NeXT-7B": (36.3, 33.4, 38.2, 40.2, 38.5, 37.8, 35.2, 35.1, 36.2, 39.1, 39.3, 36.6, 33.5, 36.5, 36.5, 36.5),
    "LLaVA-NeXT-13B": (43.1, 56.3, 44.1, 58.9, 59.4, 65.9, 58.5, 49.5, 31.9, 40.9, 34.3, 50.3, 53.2, 52.2, 50.0, 50.8),
    "PaliGemma2": (34.3, 23.7, 28.1, 27.8, 27.1, 31.6, 27.6, 33.7, 18.7, 24.2, 22.7, 15.2, 25.3, 27.4, 25.1, 25.9),
    "Phi4": (37.0, 50.6, 37.0, 54.5, 53.2, 56.5, 49.2, 42.3, 31.0, 36.3, 32.5, 42.2, 42.9, 46.5, 43.1, 44.3),
    "Qwen2.5-VL-7B": (51.5, 44.6, 52.4, 36.2, 51.5, 41.5, 28.6, 45.8, 45.1, 34.8, 42.8, 33.1, 33.5, 45.4, 39.5, 41.5),
    "Qwen2.5-VL-32B": (55.1, 56.0, 53.1, 55.7, 53.6, 47.7, 43.5, 51.0, 44.8, 37.9, 46.4, 45.5, 52.0, 55.2, 47.8, 50.3),
}


def _predict(rows, key, accuracy_of):
    """Make round(acc * n) predictions right in each group given by `key`, the rest wrong."""
    rng = np.random.default_rng(1)
    groups: dict = {}
    for i, row in enumerate(rows):
        groups.setdefault(key(row), []).append(i)
    preds = [None] * len(rows)
    for group, idx in groups.items():
        k = round(accuracy_of(group) / 100 * len(idx))
        for j, i in enumerate(rng.permutation(idx)):
            preds[i] = rows[i]["answer"] if j < k else wrong_answer(rows[i]["answer"], rng)
    return preds


def _score(rows, preds):
    return compute_scores(
        [r["answer"] for r in rows], preds, [r["scenario"] for r in rows], [r["category"] for r in rows],
        [r["source_benchmark"] for r in rows], [r["source_id"] for r in rows], n_bootstrap=200,
    )


@pytest.mark.parametrize("model", sorted(TABLE3))
def test_table3_total_from_scenarios(model):
    rows = table2_references()
    values = dict(zip(spec.SCENARIOS, TABLE3[model][:5], strict=True))
    result = _score(rows, _predict(rows, lambda r: r["scenario"], values.__getitem__))
    assert result["num_edited"] == 7254
    assert round(100 * result["accuracy"], 1) == TABLE3[model][5]
    for scenario, value in values.items():
        # rebuilt to the nearest whole sample: within half a sample of the paper's figure
        half_sample = 50 / result["support"]["by_scenario"][scenario]
        assert abs(100 * result["by_scenario"][scenario] - value) <= max(0.05, half_sample) + 1e-9


@pytest.mark.parametrize("model", sorted(TABLE4))
def test_table4_groups_from_categories(model):
    rows = [r for r in table2_references() if r["scenario"] != "no_edit"]
    values = dict(zip(spec.CATEGORIES, TABLE4[model][:13], strict=True))
    result = _score(rows, _predict(rows, lambda r: r["category"], values.__getitem__))
    norm, anom, total = TABLE4[model][13:]
    # the paper rounds each category to 0.1, so the rebuilt groups may differ from it by 0.1 at most
    assert abs(100 * result["by_group"]["normal"] - norm) <= 0.1 + 1e-9
    assert abs(100 * result["by_group"]["anomalous"] - anom) <= 0.1 + 1e-9
    assert abs(100 * result["accuracy"] - total) <= 0.1 + 1e-9


def test_no_edit_is_excluded_from_total():
    rows = table2_references()
    preds = [r["answer"] if r["scenario"] == "no_edit" else None for r in rows]
    result = _score(rows, preds)
    assert result["by_scenario"]["no_edit"] == 1.0
    assert result["accuracy"] == 0.0
    assert result["unparsed"] == 7254
    assert result["confusion_matrix"]["matrix"][0][3] + result["confusion_matrix"]["matrix"][1][3] \
        + result["confusion_matrix"]["matrix"][2][3] == 7254
