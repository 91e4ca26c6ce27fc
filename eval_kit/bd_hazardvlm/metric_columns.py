"""The BD-HazardVLM `evaluate` module's inputs, turned into what `compute_scores` takes (see metric/).

References are dataset rows as `load_dataset` returns them (ClassLabel integers, also inside the
`defensive_actions` list, and extra columns such as `id` or `image`), label names, or JSON strings of an
annotation; predictions are raw model responses (parsed with hazardkit's parser, malformed JSON repaired) or
already-parsed eight-field objects.
"""

from __future__ import annotations

import json
from typing import Any

from eval_kit.bd_hazardvlm import spec
from eval_kit.metric_inputs import class_labels, decode_row

REFERENCE_FIELDS = ("hazard_present", "primary_hazard_category", "risk_timing", "severity", "defensive_actions",
                    "hallucination_trap", "western_bias_trap")
_LABELS = class_labels(spec.features_dict(with_image=False))


def reference_row(value: Any, index: int) -> dict[str, Any]:
    row = json.loads(value) if isinstance(value, str) else value
    if not isinstance(row, dict):
        raise ValueError(f"references[{index}]: expected a dataset row (dict) or its JSON, got "
                         f"{type(value).__name__}")
    missing = [f for f in REFERENCE_FIELDS if f not in row]
    if missing:
        raise ValueError(f"references[{index}]: missing field(s) {', '.join(missing)}")
    decoded = decode_row({f: row[f] for f in REFERENCE_FIELDS}, _LABELS)
    problem = spec.control_inconsistency(decoded)
    if problem:
        raise ValueError(f"references[{index}]: {problem}")
    return decoded


def parse_prediction(value: Any) -> spec.ParseResult:
    if isinstance(value, dict):
        return spec.normalise_output(value)
    return spec.parse_response(None if value is None else str(value))


def prepare(columns: dict[str, list[Any] | None]) -> dict[str, Any]:
    return {"predictions": [parse_prediction(v) for v in columns["predictions"]],
            "references": [reference_row(v, i) for i, v in enumerate(columns["references"])]}


def to_stored(prepared: dict[str, Any], inputs: dict[str, Any]) -> dict[str, list[Any]]:
    """Evaluate's columns: each response as given (an object as its JSON, no response as "")."""
    responses = [json.dumps(v) if isinstance(v, dict) else ("" if v is None else str(v))
                 for v in inputs["predictions"]]
    return {"predictions": responses, "references": prepared["references"]}


def from_stored(columns: dict[str, list[Any]]) -> dict[str, Any]:
    return {"predictions": [spec.parse_response(v or None) for v in columns["predictions"]],
            "references": [dict(r) for r in columns["references"]]}


def score(predictions: list[spec.ParseResult], references: list[dict[str, Any]]) -> dict[str, Any]:
    from eval_kit.bd_hazardvlm.scoring import compute_scores

    return compute_scores(references, [r.prediction for r in predictions], schema_valid=[r.valid for r in predictions])
