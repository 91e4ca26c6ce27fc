"""BD-HazardVLM as an `evaluate` metric: every diagnostic of the paper for one model.

The computation lives in `eval_kit.bd_hazardvlm.scoring.compute_scores`; this module only declares the
inputs and hands them over, so `hazardkit score bd-hazardvlm` and `evaluate.load(...)` agree exactly.
"""

from __future__ import annotations

import datasets
import evaluate

from eval_kit.bd_hazardvlm import spec
from eval_kit.bd_hazardvlm.metric_columns import from_stored, prepare, score, to_stored
from eval_kit.metric_inputs import DirectCompute

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
    predictions: per image, the raw model response (parsed with hazardkit's parser: fenced, surrounded,
        truncated, single-quoted or trailing-comma JSON is read, and counted schema-invalid when malformed),
        or an already-parsed eight-field object (a dict).
    references: per image, the annotation row as `load_dataset` returns it (ClassLabel integers or names,
        extra columns such as `id` ignored; `list(ds)` or `ds.to_list()`), or its JSON string; it needs
        hazard_present, primary_hazard_category, risk_timing, severity, defensive_actions,
        hallucination_trap, western_bias_trap.
Returns:
    The nested result of `eval_kit.bd_hazardvlm.scoring.compute_scores` (e.g. result["category"]["macro_f1"],
    result["western_bias_trap"]["recall"]).
Examples:
    >>> metric = evaluate.load("eval_kit/bd_hazardvlm/metric/bd_hazardvlm.py")
    >>> ds = datasets.load_dataset("hazardkit/bd-hazardvlm", "demo_annotations", split="test")
    >>> metric.compute(predictions=responses, references=ds.to_list())["timing"]["accuracy"]
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
class BdHazardvlm(DirectCompute, evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=spec.CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": _REFERENCE}),
            reference_urls=["https://github.com/hazardkit/hazardkit"],
        )

    _prepare = staticmethod(prepare)
    _score = staticmethod(score)
    _to_stored = staticmethod(to_stored)
    _from_stored = staticmethod(from_stored)
