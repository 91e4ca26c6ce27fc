"""BD-HazardVLM as an lmms-eval task: the hooks its exported utils.py re-exports (see eval_kit.lmms_export).

The images are never published, so the task reads local Parquet with images (the `reconstructed` config, or
the `demo` one that `hazardkit reconstruct bd-hazardvlm --demo` writes); a Hub id is refused. The prompt is
hazardkit's (`spec.PROMPT`), answers go through hazardkit's parser and every aggregate through its scorer
(`compute_scores`), so the numbers equal `hazardkit score bd-hazardvlm` on the same answers. lmms-eval asks
once: there is no formatting retry (retry policy "off", recorded in the task's metadata and the only one
`export lmms-eval --retry` accepts), so `bd_schema_valid_rate` is the paper's first-answer validity.
Clustered standard errors group by source image (`cluster_key: cluster`). Every breakdown:
`hazardkit score bd-hazardvlm --from-lmms-eval SAMPLES.jsonl`.
"""

from __future__ import annotations

from typing import Any

from eval_kit.bd_hazardvlm import spec
from eval_kit.errors import BadInput
from eval_kit.lmms_export import DataSource, LmmsTask, generate_until_yaml
from eval_kit.metric_inputs import class_labels, decode_row

# metric -> (per-sample correctness, aggregate read from compute_scores)
METRICS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bd_category_accuracy": ("primary_hazard_category", ("category", "accuracy")),
    "bd_category_macro_f1": ("primary_hazard_category", ("category", "macro_f1")),
    "bd_timing_accuracy": ("risk_timing", ("timing", "accuracy")),
    "bd_severity_accuracy": ("severity", ("severity", "accuracy")),
    "bd_schema_valid_rate": ("(valid)", ("schema", "valid_rate")),
}
_REFERENCE_FIELDS = ("hazard_present", "primary_hazard_category", "risk_timing", "severity", "defensive_actions",
                     "hallucination_trap", "western_bias_trap")
_LABELS = class_labels(spec.features_dict(with_image=True))


def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    image = doc.get("image")
    return [image.convert("RGB")] if image is not None else []


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None) -> str:
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{spec.PROMPT}{kwargs.get('post_prompt', '')}"


def doc_to_target(doc: dict[str, Any]) -> str:
    return str(decode_row({"c": doc["primary_hazard_category"]}, {"c": _LABELS["primary_hazard_category"]})["c"])


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, dict[str, Any]]:
    row = decode_row({k: v for k, v in doc.items() if k != "image"}, _LABELS)
    reference = {k: row[k] for k in _REFERENCE_FIELDS}
    parsed = spec.parse_response(results[0] if results else None)
    base = {"id": doc["id"], "cluster": f"{row.get('source_dataset')}/{row.get('source_id') or doc['id']}",
            "reference": reference, "prediction": parsed.prediction, "valid": parsed.valid}
    out = {}
    for metric, (field, _) in METRICS.items():
        score = parsed.valid if field == "(valid)" else parsed.prediction.get(field) == reference[field]
        out[metric] = {**base, "score": float(score)}
    return out


def _aggregate(items: list[dict[str, Any]], path: tuple[str, ...]) -> float | None:
    from eval_kit.bd_hazardvlm.scoring import compute_scores

    result: Any = compute_scores([x["reference"] for x in items], [x["prediction"] for x in items],
                                 schema_valid=[x["valid"] for x in items])
    for key in path:
        result = result[key]
    return result


def aggregate_category_accuracy(items: list[dict[str, Any]]) -> float | None:
    return _aggregate(items, METRICS["bd_category_accuracy"][1])


def aggregate_category_macro_f1(items: list[dict[str, Any]]) -> float | None:
    return _aggregate(items, METRICS["bd_category_macro_f1"][1])


def aggregate_timing_accuracy(items: list[dict[str, Any]]) -> float | None:
    return _aggregate(items, METRICS["bd_timing_accuracy"][1])


def aggregate_severity_accuracy(items: list[dict[str, Any]]) -> float | None:
    return _aggregate(items, METRICS["bd_severity_accuracy"][1])


def aggregate_schema_valid_rate(items: list[dict[str, Any]]) -> float | None:
    return _aggregate(items, METRICS["bd_schema_valid_rate"][1])


def _check_source(source: DataSource) -> None:
    if source.hub_id:
        raise BadInput("BD-HazardVLM images are never published, so lmms-eval cannot read them from the Hub",
                       field="--data", fix="rebuild them (`hazardkit reconstruct bd-hazardvlm`) and pass "
                                           "--data bd-hazardvlm=bd_hazardvlm/reconstructed (or, after --demo, "
                                           "--data bd-hazardvlm=bd_hazardvlm --config bd-hazardvlm=demo)")


def _default_data() -> tuple[str, str | None] | None:
    """The local images when --data is not given: ./bd_hazardvlm/reconstructed, else the demo config."""
    from pathlib import Path

    folder = Path(spec.NAME)
    if list((folder / "reconstructed").glob("*.parquet")):
        return str(folder / "reconstructed"), None
    if list((folder / "data" / "demo").glob("*.parquet")):
        return str(folder), "demo"
    return None


_AGGREGATES = {
    "bd_category_accuracy": "aggregate_category_accuracy",
    "bd_category_macro_f1": "aggregate_category_macro_f1",
    "bd_timing_accuracy": "aggregate_timing_accuracy",
    "bd_severity_accuracy": "aggregate_severity_accuracy",
    "bd_schema_valid_rate": "aggregate_schema_valid_rate",
}
_METRIC_YAML = "".join(f"  - metric: {m}\n    aggregation: !function utils.{f}\n    higher_is_better: true\n"
                       for m, f in _AGGREGATES.items())

TASK = LmmsTask(
    name="hazardkit_bd_hazardvlm",
    utils_module="eval_kit.bd_hazardvlm.lmms_eval",
    functions=("doc_to_visual", "doc_to_text", "doc_to_target", "process_results", *_AGGREGATES.values()),
    check_source=_check_source,
    default_data=_default_data,
    yaml_body=generate_until_yaml(1024) + f"""
metric_list:
{_METRIC_YAML.rstrip()}
lmms_eval_specific_kwargs:
  default:
    pre_prompt: ""
    post_prompt: ""
metadata:
  - version: 1.0
  - retry: "off"  # hazardkit's retry policy: lmms-eval asks each sample once (`hazardkit eval --retry` differs)
""",
)
