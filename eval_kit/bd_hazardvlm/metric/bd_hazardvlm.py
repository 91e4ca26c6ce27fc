"""BD-HazardVLM as an `evaluate` metric: every diagnostic of the paper for one model.

The computation lives in `eval_kit.bd_hazardvlm.scoring.compute_scores`; this module only declares the
inputs and hands them over, so `hazardkit score bd-hazardvlm` and `evaluate.load(...)` agree exactly.
"""

from __future__ import annotations

import datasets
import evaluate

from eval_kit.bd_hazardvlm import spec

_DESCRIPTION = """
BD-HazardVLM scores a vision-language model's eight-field defensive-driving answer for Bangladesh road
images: hazard-presence accuracy (with the majority-class baseline), primary-hazard-category accuracy and
macro-F1, risk-timing and severity accuracy (with per-class recall and high-severity recall), defensive
action exact-set match, any-overlap rate and mean Jaccard, positive-flag rate and recall of the
hallucination and Western-road-bias self-reports against the human trap labels, prediction distributions
(to expose collapse) and the schema-valid rate. Scores are fractions in [0, 1].
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: per image, the raw model response as a string (parsed with the benchmark parser; a
        parsed eight-field object can be passed as its JSON text, `json.dumps(obj)`).
    references: per image, the annotation with hazard_present, primary_hazard_category, risk_timing,
        severity, defensive_actions, hallucination_trap, western_bias_trap.
Returns:
    The nested result of `eval_kit.bd_hazardvlm.scoring.compute_scores` (e.g. result["category"]["macro_f1"],
    result["western_bias_trap"]["recall"]).
Examples:
    >>> metric = evaluate.load("eval_kit/bd_hazardvlm/metric/bd_hazardvlm.py")
    >>> metric.compute(predictions=[response_text], references=[annotation])["timing"]["accuracy"]
"""


_REFERENCE = {
    "hazard_present": datasets.Value("bool"),
    "primary_hazard_category": datasets.Value("string"),
    "risk_timing": datasets.Value("string"),
    "severity": datasets.Value("string"),
    "defensive_actions": datasets.Sequence(datasets.Value("string")),
    "hallucination_trap": datasets.Value("bool"),
    "western_bias_trap": datasets.Value("bool"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BdHazardvlm(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=spec.CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": _REFERENCE}),
            reference_urls=["https://github.com/hazardkit/hazardkit"],
        )

    def _compute(self, predictions, references):
        from eval_kit.bd_hazardvlm import spec
        from eval_kit.bd_hazardvlm.scoring import compute_scores

        results = [spec.parse_response(pred) for pred in predictions]
        return compute_scores(list(references), [r.prediction for r in results],
                              schema_valid=[r.valid for r in results])
