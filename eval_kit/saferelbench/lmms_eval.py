"""SafeRelBench as an lmms-eval task: the hooks its exported utils.py re-exports (see eval_kit.lmms_export).

lmms-eval can express it: the task is text-only (the symbolic initial state is in the prompt, as in
`hazardkit eval`), and scoring a plan needs no judge, only hazardkit's executor, which `process_results` runs
per sample. The prompt variant is set in the YAML (`lmms_eval_specific_kwargs.default.variant`, default
`base`). SSR (task + safety) is the headline, SR next to it; SRec and every breakdown:
`hazardkit score saferelbench --samples ... --from-lmms-eval SAMPLES.jsonl`. Standard errors are clustered
by source activity (`cluster_key: cluster`): samples built from one BEHAVIOR-1K activity are correlated.
"""

from __future__ import annotations

from typing import Any

from eval_kit.lmms_export import LmmsTask, generate_until_yaml
from eval_kit.metric_inputs import class_labels, decode_row

_CACHE: dict[str, Any] = {}


def _sample(doc: dict[str, Any]):
    from eval_kit.saferelbench import spec
    from eval_kit.saferelbench.samples import build_sample, sample_from_row

    key = doc["id"]
    if key not in _CACHE:
        _CACHE[key] = build_sample(sample_from_row(decode_row(doc, class_labels(spec.features()))))
    return _CACHE[key]


def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    return []


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None) -> str:
    from eval_kit.saferelbench.prompts import build_prompt

    kwargs = lmms_eval_specific_kwargs or {}
    return (f"{kwargs.get('pre_prompt', '')}{build_prompt(_sample(doc), kwargs.get('variant', 'base'))}"
            f"{kwargs.get('post_prompt', '')}")


def doc_to_target(doc: dict[str, Any]) -> str:
    return str(doc.get("reference_plan", ""))


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, dict[str, Any]]:
    from eval_kit.saferelbench.episode import read_plan, run_episode

    sample = _sample(doc)
    parsed = read_plan(sample, None, results[0] if results else None)
    result, _ = run_episode(sample, parsed.actions, parse_error=parsed.error, unparsed_lines=parsed.unparsed_lines,
                            unparsed=parsed.unparsed)
    base = {"id": sample.id, "cluster": doc.get("source_activity") or sample.id, "success": bool(result.success),
            "safe_success": bool(result.safe_success), "satisfied": int(result.satisfied),
            "applicable": int(result.applicable), "relation": sample.relation, "risk_type": sample.risk_type,
            "split": sample.split, "variant": result.variant, "parsed": bool(result.parsed)}
    return {"saferelbench_ssr": {**base, "score": float(result.safe_success)},
            "saferelbench_sr": {**base, "score": float(result.success)}}


def _scores(items: list[dict[str, Any]]) -> dict[str, Any]:
    from eval_kit.saferelbench.scoring import compute_scores

    return compute_scores([x["success"] for x in items], [x["safe_success"] for x in items],
                          [x["satisfied"] for x in items], [x["applicable"] for x in items],
                          [x["relation"] for x in items], [x["risk_type"] for x in items],
                          [x["split"] for x in items], [x["variant"] for x in items],
                          unparsed=[not x["parsed"] for x in items])


def aggregate_ssr(items: list[dict[str, Any]]) -> float | None:
    return _scores(items)["SSR"]


def aggregate_sr(items: list[dict[str, Any]]) -> float | None:
    return _scores(items)["SR"]


TASK = LmmsTask(
    name="hazardkit_saferelbench",
    utils_module="eval_kit.saferelbench.lmms_eval",
    functions=("doc_to_visual", "doc_to_text", "doc_to_target", "process_results", "aggregate_ssr", "aggregate_sr"),
    needs_images=False,
    yaml_body=generate_until_yaml(1024) + """
metric_list:
  - metric: saferelbench_ssr
    aggregation: !function utils.aggregate_ssr
    higher_is_better: true
  - metric: saferelbench_sr
    aggregation: !function utils.aggregate_sr
    higher_is_better: true
lmms_eval_specific_kwargs:
  default:
    variant: base
    pre_prompt: ""
    post_prompt: ""
metadata:
  - version: 1.0
""",
)
