"""SafeRelBench as a runner task: a household task in text in, an action plan out.

SafeRelBench is text-only by nature: the agent plans from the instruction, the object list and the
symbolic initial state (`eval_kit.saferelbench.prompts.build_prompt`), with no image. So every run is its
own text-only control; `--text-only` is accepted and changes nothing in the requests. The prompt
variant (base / risk_aware / action_grounded) is part of every request key, so runs of different
variants never resume into each other. Plans are scored by the symbolic executor (`score saferelbench`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.task import Request, Task, default_data, user_message
from eval_kit.saferelbench import spec

# The baselines that make sense for a planning benchmark (there is no label to pick at random):
#   empty:       no plan at all (SR = SSR = 0; a floor, and a check that an empty plan is a failure)
#   unmitigated: the reference plan with every step flagged `mitigates` removed, i.e. a competent but
#                safety-blind agent: it completes tasks (high SR) while skipping the preventive steps
#   reference:   the full reference plan, an oracle upper bound (SR = SSR = 1 on valid samples)
BASELINE_PLANS: tuple[str, ...] = ("empty", "unmitigated", "reference")


class SafeRelBenchTask(Task):
    """One plan request per sample for the run's prompt variant (the runner runs one variant at a time)."""

    name = spec.NAME
    version = "1.0"
    baseline_kinds = ("fixed",)

    def __init__(self, data: str | Path | None = None, config: str | None = None,
                 dataset_revision: str | None = None, variant: str | None = None) -> None:
        super().__init__(data if data is not None else default_data(spec.NAME), config, dataset_revision,
                         variant or spec.VARIANTS[0])
        if spec.normalise_variant(self.variant) != self.variant:
            raise BadInput(f"unknown prompt variant {self.variant!r}", field="--prompt-variant",
                           fix=f"use one of {', '.join(spec.VARIANTS)}")
        self._samples: dict[str, Any] | None = None

    def compiled(self) -> dict[str, Any]:
        """Validated, compiled samples (`eval_kit.saferelbench.samples.Sample`) keyed by id, in file order."""
        from eval_kit.saferelbench.samples import load_samples

        if self._samples is None:
            if not self.data.exists():
                raise BadInput("dataset not found", path=self.data, fix="pass --data PATH (JSON Lines or Parquet)")
            self._samples = load_samples(self.data, self.config)
        return self._samples

    def data_files(self) -> list[Path]:
        from eval_kit.tables import parquet_files

        if self.data.is_file():
            return [self.data]
        if not (self.data / "data").is_dir() and not list(self.data.glob("*.parquet")):
            return sorted(self.data.glob("*.jsonl"))
        return parquet_files(self.data, self.config)

    def count(self, *, limit: int | None = None) -> int | None:
        total = len(self.compiled())
        return min(total, limit) if limit is not None else total

    def samples(self, *, limit: int | None = None, text_only: bool = False) -> Iterator[Request]:
        from eval_kit.saferelbench.prompts import build_prompt

        for n, sample in enumerate(self.compiled().values()):
            if limit is not None and n >= limit:
                return
            yield Request(id=sample.id, messages=[user_message(build_prompt(sample, self.variant), 0)],
                         variant=self.variant)

    # --- answers --------------------------------------------------------------------------------
    def parse(self, response: str | None) -> list[dict[str, Any]] | None:
        """The plan as [{action, args}] for the log; scoring parses the raw response again with the objects."""
        from eval_kit.saferelbench.plan_parser import parse_plan
        from eval_kit.saferelbench.prompts import plan_block

        parsed = parse_plan(plan_block(response))
        return None if parsed.actions is None else [a.to_json() for a in parsed.actions]

    def label_space(self) -> Sequence[str]:
        return BASELINE_PLANS

    def baseline_answer(self, sample: Request, label: Any) -> str:
        compiled = self.compiled()[sample.id]
        if label == "empty":
            return "[]"
        skip = {i for steps in compiled.mitigation_steps.values() for i in steps} if label == "unmitigated" else set()
        return json.dumps([a.to_json() for i, a in enumerate(compiled.reference_plan) if i not in skip])

    def prediction_line(self, record: dict[str, Any], prediction: Any) -> dict[str, Any]:
        """Schema `saferelbench_plan`: id, variant and the raw response (the scorer parses it with the objects)."""
        return {"id": record["id"], "variant": record.get("variant") or self.variant,
                "response": record.get("response") or ""}


def score_run(task: SafeRelBenchTask, predictions: Path, *, n_bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    """SR / SSR / SRec overall and by relation, risk type, split and variant over the samples the run answered.

    The headline is SSR (task AND safety success). `per_sample` is per-episode safe success and
    `per_sample_tasks.success` task success, for the leaderboard's paired McNemar + Holm matrices.
    `ci95` is a bootstrap interval of SSR resampling matched spatial/control pairs as clusters.
    """
    import numpy as np

    from eval_kit.jsonl import iter_jsonl
    from eval_kit.saferelbench.submission import score_plans
    from eval_kit.scoring.bootstrap import cluster_bootstrap_ci

    samples = task.compiled()
    answered_ids = {obj.get("id") for _, obj in iter_jsonl(predictions) if isinstance(obj, dict)}
    answered = {i: s for i, s in samples.items() if i in answered_ids}
    unknown = sorted(str(i) for i in answered_ids - set(samples))
    if unknown:
        raise BadInput(f"id {unknown[0]!r} is not a sample", path=predictions, field="id")
    if not answered:
        raise BadInput("the run has no predictions yet", path=predictions, fix="run `hazardkit eval` first")
    metrics, episodes = score_plans(answered, predictions)
    result: dict[str, Any] = {"benchmark": spec.NAME, "num_samples": len(episodes), **metrics}
    clusters = [min(e.id, samples[e.id].matched_id or e.id) for e in episodes]
    ci = cluster_bootstrap_ci(np.array([e.safe_success for e in episodes]), np.array(clusters),
                              n_resamples=n_bootstrap, seed=seed)
    result["ci95"] = list(ci) if ci is not None else None
    result["per_sample"] = {"id": [e.id for e in episodes], "correct": [bool(e.safe_success) for e in episodes]}
    result["per_sample_tasks"] = {"success": [bool(e.success) for e in episodes]}
    result["partial"] = len(answered) < len(samples)
    return result
