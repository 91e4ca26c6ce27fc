"""MovSafeBench as an lmms-eval task: the hooks its exported utils.py re-exports (see eval_kit.lmms_export).

Rows come from `datasets` (ClassLabel columns as integers, the image decoded); the prompt is the row's
question (what `hazardkit eval` sends), answers go through hazardkit's parser. The headline metric is the
paper's "Total": accuracy over edited images; a `no_edit` row carries its correctness under another key, so
lmms-eval's standard errors (plain and clustered by source image, `cluster_key: cluster`) cover the same
rows as the accuracy. Full breakdowns: `hazardkit score movsafebench --from-lmms-eval SAMPLES.jsonl`.
"""

from __future__ import annotations

from typing import Any

from eval_kit.lmms_export import LmmsTask, generate_until_yaml
from eval_kit.movsafebench import spec

METRIC = "movsafebench_accuracy"


def _label(value: Any, names: tuple[str, ...]) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return names[int(value)] if 0 <= int(value) < len(names) else None


def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    image = doc.get("image")
    return [image.convert("RGB")] if image is not None else []


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None) -> str:
    question = doc.get("question") or spec.build_question(_label(doc.get("agent"), spec.AGENTS) or "vehicle")
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{question}{kwargs.get('post_prompt', '')}"


def doc_to_target(doc: dict[str, Any]) -> str:
    return _label(doc["answer"], spec.ANSWERS)


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, dict[str, Any]]:
    response = results[0] if results else None
    prediction = spec.parse_answer(response)
    answer = _label(doc["answer"], spec.ANSWERS)
    scenario = _label(doc.get("scenario"), spec.SCENARIOS)
    source = _label(doc.get("source_benchmark"), spec.SOURCE_BENCHMARKS)
    correct = float(prediction == answer)
    item = {"id": doc["id"], "prediction": prediction, "answer": answer, "scenario": scenario,
            "category": _label(doc.get("category"), spec.CATEGORIES), "source_benchmark": source,
            "cluster": f"{source}/{doc.get('source_id') or doc['id']}"}
    # lmms-eval's standard errors read "score" (the task's score_key); no_edit rows are not in the Total
    item["score" if scenario != "no_edit" else "no_edit_score"] = correct
    return {METRIC: item}


def aggregate_accuracy(items: list[dict[str, Any]]) -> float | None:
    """Accuracy over edited images (the paper's Total), the same number `hazardkit score` reports."""
    scores = [x["score"] for x in items if "score" in x]
    return sum(scores) / len(scores) if scores else None


TASK = LmmsTask(
    name="hazardkit_movsafebench",
    utils_module="eval_kit.movsafebench.lmms_eval",
    functions=("doc_to_visual", "doc_to_text", "doc_to_target", "process_results", "aggregate_accuracy"),
    # edited variants of one source image are correlated: lmms-eval's clustered standard error over `cluster`
    yaml_body=generate_until_yaml(512, "edited variants of one source image are correlated") + f"""
metric_list:
  - metric: {METRIC}
    aggregation: !function utils.aggregate_accuracy
    higher_is_better: true
lmms_eval_specific_kwargs:
  default:
    pre_prompt: ""
    post_prompt: ""
metadata:
  - version: 1.0
""",
)
