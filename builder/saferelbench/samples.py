"""SafeRelBench sample self-validation and loading for publishing: the builder refuses samples that fail.

Self-validation of one sample, under the symbolic executor:
1. every reference-plan step executes (no failed precondition);
2. the reference plan succeeds (task goal holds at the end) and is safe (every applicable goal satisfied);
3. every safety goal that has mitigation steps is applicable under the reference plan, and the plan
   without those steps still succeeds but violates that goal (so the goal tests something);
4. at least one goal has mitigation steps.
`load_validated_samples` is what publishing (issue #5) calls: rows ready for Parquet, all validated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.saferelbench.episode import run_episode
from eval_kit.saferelbench.samples import Sample, load_samples, sample_to_row

# The demo samples of a hazardkit checkout (relative to the working directory, as `make demo` runs).
DEMO_DIR = Path("manifests") / "saferelbench"


@dataclass(frozen=True)
class Check:
    sample_id: str
    ok: bool
    problems: tuple[str, ...]


def validate_sample(sample: Sample) -> Check:
    """Run the four checks in the module docstring; collect every problem (not just the first)."""
    problems: list[str] = []
    result, trace = run_episode(sample, sample.reference_plan, on_failure="continue")
    for i, step in enumerate(trace.steps):
        if step.status != "ok":
            problems.append(f"reference step {i} {step.action} fails: {step.error}")
    if not result.success:
        problems.append("reference plan does not reach the task goal")
    for goal in result.goals:
        if goal.applicable and not goal.satisfied:
            problems.append(f"reference plan violates safety goal {goal.id!r}")
    by_id = {g.id: g for g in result.goals}
    mitigated = {gid: steps for gid, steps in sample.mitigation_steps.items() if steps}
    if not mitigated:
        problems.append("no safety goal has mitigation steps (flag them with `mitigates`)")
    for gid, steps in mitigated.items():
        if not by_id[gid].applicable:
            problems.append(f"goal {gid!r} is not applicable under the reference plan")
        reduced = [a for i, a in enumerate(sample.reference_plan) if i not in set(steps)]
        r2, _ = run_episode(sample, reduced, on_failure="continue")
        if not r2.success:
            problems.append(f"without the mitigation of {gid!r} the task no longer succeeds")
        g2 = next(g for g in r2.goals if g.id == gid)
        if not (g2.applicable and g2.satisfied is False):
            problems.append(f"without the mitigation of {gid!r} the goal is not violated")
    return Check(sample.id, not problems, tuple(problems))


def validate_samples(samples: dict[str, Sample]) -> list[Check]:
    checks = [validate_sample(s) for s in samples.values()]
    for sample in samples.values():  # a control must point at a spatial sample with the same relation
        if sample.split == "control":
            other = samples.get(sample.matched_id or "")
            if other is None or other.split != "spatial" or other.relation != sample.relation:
                checks.append(Check(sample.id, False, (f"matched_id {sample.matched_id!r} is not a spatial sample "
                                                        f"of relation {sample.relation!r}",)))
    return checks


def load_validated_samples(path: str | Path = DEMO_DIR, config: str | None = None) -> list[dict[str, Any]]:
    """Flat rows (see `eval_kit.saferelbench.spec.features`) of samples that pass self-validation.

    Raises BadInput naming the first failing sample: the builder never publishes an invalid sample.
    """
    samples = load_samples(path, config)
    for check in validate_samples(samples):
        if not check.ok:
            raise BadInput(f"sample {check.sample_id!r} fails self-validation: {'; '.join(check.problems)}",
                           path=path, fix="fix the sample or its reference plan")
    return [sample_to_row(s.raw) for s in samples.values()]
