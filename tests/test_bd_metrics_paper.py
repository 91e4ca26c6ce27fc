"""The paper's worked numbers, reproduced by scoring constructed predictions (BD-HazardVLM sections 3-5)."""

import numpy as np
import pytest

from eval_kit.bd_hazardvlm import spec
from eval_kit.bd_hazardvlm.scoring import compute_scores, jaccard, per_image
from tests.bd_fixtures import paper_references, perfect_prediction


@pytest.fixture(scope="module")
def refs():
    return paper_references()


def test_reference_marginals_match_table2(refs):
    assert len(refs) == 500
    assert sum(r["hazard_present"] for r in refs) == 445
    assert sum(r["risk_timing"] == "latent" for r in refs) == 404
    assert sum(r["risk_timing"] == "immediate" for r in refs) == 41
    assert sum(r["western_bias_trap"] for r in refs) == 285
    assert all(spec.control_inconsistency(r) is None for r in refs)


def test_majority_baseline_is_89_percent(refs):
    preds = [perfect_prediction(r) for r in refs]
    for p in preds:  # a model that always says "hazard"
        p["hazard_present"] = True
    result = compute_scores(refs, preds)
    assert result["hazard_presence"]["majority_baseline"] == pytest.approx(0.89)
    assert result["hazard_presence"]["majority_class"] is True
    assert result["hazard_presence"]["accuracy"] == pytest.approx(0.89)


def test_western_bias_19_flags_3_true_positives(refs):
    """Qwen2.5-VL-7B: 19 flags, 3 among the 285 positives -> 3.8% flag rate, 1.1% recall."""
    preds = [perfect_prediction(r) for r in refs]
    pos = [i for i, r in enumerate(refs) if r["western_bias_trap"]]
    neg = [i for i, r in enumerate(refs) if not r["western_bias_trap"]]
    for p in preds:
        p["possible_western_road_bias"] = False
    for i in pos[:3] + neg[:16]:
        preds[i]["possible_western_road_bias"] = True
    trap = compute_scores(refs, preds)["western_bias_trap"]
    assert trap["flags"] == 19 and trap["true_positive_flags"] == 3 and trap["reference_positives"] == 285
    assert round(100 * trap["flag_rate"], 1) == 3.8
    assert round(100 * trap["recall"], 1) == 1.1


def test_hallucination_three_false_positive_flags(refs):
    """MiniCPM-V-4.6: 3 hallucination flags, all false positives -> 0.6% flag rate, 0.0% recall."""
    preds = [perfect_prediction(r) for r in refs]
    neg = [i for i, r in enumerate(refs) if not r["hallucination_trap"]]
    for p in preds:
        p["possible_hallucination"] = False
    for i in neg[:3]:
        preds[i]["possible_hallucination"] = True
    trap = compute_scores(refs, preds)["hallucination_trap"]
    assert round(100 * trap["flag_rate"], 1) == 0.6
    assert trap["recall"] == 0.0
    assert round(100 * trap["reference_rate"], 1) == 64.8


def test_timing_collapse_8_of_500(refs):
    """MiniCPM-V-4.6 predicts `both` 283 times and `immediate` 217 times, never latent/none: 8 correct = 1.6%."""
    preds = [perfect_prediction(r) for r in refs]
    immediate = [i for i, r in enumerate(refs) if r["risk_timing"] == "immediate"]
    others = [i for i, r in enumerate(refs) if r["risk_timing"] != "immediate"]
    chosen = set(immediate[:8]) | set(others[:209])  # 217 immediate predictions, 8 of them right
    for i, p in enumerate(preds):
        p["risk_timing"] = "immediate" if i in chosen else "both"
    timing = compute_scores(refs, preds)["timing"]
    assert timing["prediction_distribution"] == {"immediate": 217, "latent": 0, "both": 283, "none": 0}
    assert round(100 * timing["accuracy"], 1) == 1.6
    assert timing["per_class_recall"]["latent"] == 0.0
    assert "both" not in timing["per_class_recall"]  # no reference is `both`


def test_category_collapse_and_macro_f1(refs):
    """Qwen2.5-VL-7B-like collapse: 426 of 500 to rickshaw_easybike shows in the distribution; macro-F1 drops."""
    preds = [perfect_prediction(r) for r in refs]
    rick = [i for i, r in enumerate(refs) if r["primary_hazard_category"] == "rickshaw_easybike"]
    other = [i for i, r in enumerate(refs) if r["primary_hazard_category"] != "rickshaw_easybike"]
    collapsed = set(rick) | set(other[: 426 - len(rick)])
    for i in collapsed:
        preds[i]["primary_hazard_category"] = "rickshaw_easybike"
    cat = compute_scores(refs, preds)["category"]
    assert cat["prediction_distribution"]["rickshaw_easybike"] == 426
    assert cat["reference_distribution"]["rickshaw_easybike"] == 205
    assert cat["per_class_recall"]["rickshaw_easybike"] == 1.0
    assert cat["accuracy"] == pytest.approx((500 - (426 - 205)) / 500)
    from sklearn.metrics import f1_score
    y_true = [r["primary_hazard_category"] for r in refs]
    y_pred = [p["primary_hazard_category"] for p in preds]
    assert cat["macro_f1"] == pytest.approx(f1_score(y_true, y_pred, average="macro"))
    assert cat["macro_f1"] < cat["accuracy"]


def test_high_severity_recall_zero_with_medium_collapse(refs):
    preds = [perfect_prediction(r) for r in refs]
    for p in preds:
        if p["severity"] == "high":
            p["severity"] = "medium"
    sev = compute_scores(refs, preds)["severity"]
    assert sev["high_recall"] == 0.0
    assert sev["per_class_recall"]["medium"] == 1.0
    assert sev["accuracy"] == pytest.approx(1 - 58 / 500)


def test_action_set_metrics():
    assert jaccard(["slow_down", "keep_distance"], ["slow_down"]) == 0.5
    assert jaccard(["slow_down"], None) == 0.0
    refs = paper_references()[:4]
    preds = [perfect_prediction(r) for r in refs]
    preds[1]["defensive_actions"] = [a for a in spec.ACTIONS if a not in refs[1]["defensive_actions"]][:1]
    preds[2] = None
    result = compute_scores(refs, preds)
    assert result["actions"]["exact_match"] == 0.5
    assert result["actions"]["any_overlap"] == 0.5
    assert result["actions"]["mean_jaccard"] == 0.5
    assert result["schema"]["valid_rate"] == 0.75
    assert result["category"]["prediction_distribution"]["invalid"] == 1
    vec = per_image(refs, preds)
    assert vec["category"].tolist() == [True, True, False, True]
    assert np.allclose(vec["actions_jaccard"], [1, 0, 0, 1])


def test_missing_field_is_scored_wrong_not_skipped():
    refs = paper_references()[:2]
    preds = [perfect_prediction(r) for r in refs]
    del preds[0]["severity"]
    result = compute_scores(refs, preds)
    assert result["severity"]["accuracy"] == 0.5
    assert result["schema"]["invalid_field_counts"]["severity"] == 1
    assert result["schema"]["valid_rate"] == 0.5


def test_labels_outside_the_space_are_caller_errors():
    refs = paper_references()[:2]
    preds = [perfect_prediction(r) for r in refs]
    preds[0]["severity"] = "catastrophic"
    with pytest.raises(ValueError, match="prediction 0: severity 'catastrophic'"):
        compute_scores(refs, preds)
    preds[0]["severity"] = "low"
    preds[1]["defensive_actions"] = ["honk"]
    with pytest.raises(ValueError, match="honk"):
        compute_scores(refs, preds)
    with pytest.raises(ValueError, match="entries"):
        compute_scores(refs, preds[:1])
