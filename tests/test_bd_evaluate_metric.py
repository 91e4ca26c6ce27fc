"""The `evaluate` module gives the same numbers as the plain scoring function."""

import json

import pytest

from eval_kit import registry
from eval_kit.bd_hazardvlm.scoring import compute_scores
from tests.bd_fixtures import paper_references, perfect_prediction

METRIC_DIR = registry.get("bd_hazardvlm").metric_path()
REF_KEYS = ("hazard_present", "primary_hazard_category", "risk_timing", "severity", "defensive_actions",
            "hallucination_trap", "western_bias_trap")


def test_evaluate_module_matches_compute_scores():
    evaluate = pytest.importorskip("evaluate")
    refs = paper_references()[:40]
    preds = [perfect_prediction(r) for r in refs]
    preds[0]["severity"] = "catastrophic"
    preds[1]["risk_timing"] = "both"
    responses = [json.dumps(p) for p in preds]
    responses[2] = "no idea"
    metric = evaluate.load(str(METRIC_DIR))
    got = metric.compute(predictions=responses, references=[{k: r[k] for k in REF_KEYS} for r in refs])
    parsed = [dict(p) for p in preds]
    del parsed[0]["severity"]
    parsed[2] = {}
    want = compute_scores(refs, parsed, schema_valid=[i not in (0, 2) for i in range(40)])
    assert got == want
    assert got["severity"]["accuracy"] == pytest.approx(38 / 40)
    assert got["timing"]["accuracy"] == pytest.approx(38 / 40)
