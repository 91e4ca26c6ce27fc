"""SafeRelBench as a Hugging Face `evaluate` metric: plans in, SR / SSR / SRec / SSR-over-SR out.

The real work is in plain functions (`eval_kit.saferelbench`, `eval_kit.saferelbench.scoring`); this module only
adapts their inputs. Load it with `evaluate.load("eval_kit/saferelbench/metric/saferelbench.py")`.
"""

from __future__ import annotations

import json

import datasets
import evaluate

from eval_kit.metric_inputs import DirectCompute, class_labels, decode_row
from eval_kit.saferelbench import spec

_DESCRIPTION = """SafeRelBench scoring. Each prediction is an agent's plan (raw model text, or a JSON list of
{action, args}); each reference is the sample it answers: a dataset row as `load_dataset` returns it
(ClassLabel integers or names), or one SafeRelBench sample as a JSON string, as in
manifests/saferelbench/*.jsonl. Plans run through hazardkit's symbolic executor;
process-level safety goals are checked before every executed occurrence of their trigger action, termination
goals on the final state by their gate. SR = task success rate; SSR = task success with every applicable safety
goal satisfied; SRec = satisfied / applicable safety goals over task-successful episodes; SSR/SR. Unparseable
or empty plans count as failures. Also reported by relation, risk type, split and prompt variant."""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of str, the plans (raw text or JSON).
    references: the samples: dataset rows (`ds.to_list()`, ClassLabel integers or names) or JSON strings.
    variants: optional list of str, the prompt variant of each plan (base / risk_aware / action_grounded).
    on_failure: "continue" (default) or "stop", what the executor does after a failed precondition.
Returns:
    dict with n, SR, SSR, SRec, SSR/SR, applicable_goals, unparsed, failed_steps, truncated_episodes,
    unparsed_lines, unparsed_examples (the unused lines of up to 20 episodes) and the by_* breakdowns.
Example:
    >>> metric = evaluate.load("eval_kit/saferelbench/metric/saferelbench.py")
    >>> ds = datasets.load_dataset("hazardkit/saferelbench", "demo", split="test")
    >>> metric.compute(predictions=plans, references=ds.to_list())
"""



def score_plans(predictions: list[str], references: list[str], variants: list[str] | None = None,
                on_failure: str = "continue") -> dict:
    """Plain-function core of the metric (importable without `evaluate`)."""
    from eval_kit.saferelbench.episode import read_plan, run_episode
    from eval_kit.saferelbench.samples import build_sample, sample_from_row
    from eval_kit.saferelbench.scoring import episode_scores
    from eval_kit.saferelbench.spec import normalise_variant

    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions for {len(references)} references")
    variants = list(variants) if variants is not None else ["base"] * len(predictions)
    cache: dict[object, object] = {}
    results, samples = [], []
    for text, ref, variant in zip(predictions, references, variants, strict=True):
        canonical = normalise_variant(variant)
        if canonical is None:
            raise ValueError(f"unknown prompt variant {variant!r}")
        key = ref if isinstance(ref, str) else id(ref)
        if key not in cache:
            row = json.loads(ref) if isinstance(ref, str) else ref
            cache[key] = build_sample(sample_from_row(decode_row(row, _labels())))
        sample = cache[key]
        parsed = read_plan(sample, None, text)
        result, _ = run_episode(sample, parsed.actions, variant=canonical, parse_error=parsed.error,
                                on_failure=on_failure, unparsed_lines=parsed.unparsed_lines, unparsed=parsed.unparsed)
        results.append(result)
        samples.append(sample)
    return episode_scores(results, samples)


def _labels():
    return class_labels(spec.features())


def _prepare(columns):
    return {"predictions": ["" if p is None else str(p) for p in columns["predictions"]],
            "references": [r if isinstance(r, str) else decode_row(r, _labels()) for r in columns["references"]]}


def _to_stored(prepared, inputs):
    return {"predictions": prepared["predictions"],
            "references": [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False, sort_keys=True)
                           for r in prepared["references"]]}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Saferelbench(DirectCompute, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=spec.CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"),
                                        "references": datasets.Value("string")}),
            reference_urls=["https://github.com/hazardkit/hazardkit"],
        )

    _prepare = staticmethod(_prepare)
    _to_stored = staticmethod(_to_stored)
    _from_stored = staticmethod(lambda columns: columns)

    @staticmethod
    def _score(predictions, references, variants=None, on_failure="continue"):
        return score_plans(list(predictions), list(references), variants, on_failure)
