"""One episode end to end: a plan (actions or raw text) for a sample -> executed trace -> scored result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval_kit.saferelbench.actions import Action, action_from_json
from eval_kit.saferelbench.executor import Trace, execute
from eval_kit.saferelbench.plan_parser import PlanParse, parse_plan
from eval_kit.saferelbench.prompts import plan_block
from eval_kit.saferelbench.samples import Sample
from eval_kit.saferelbench.scorer import SampleResult, score_trace


def read_plan(sample: Sample, plan: Sequence[Mapping[str, Any]] | None, response: str | None) -> PlanParse:
    """The plan of one answer: an explicit `plan` (wins) or a raw `response` read by the parser, with the lines
    it did not use (`unparsed_lines`, the first of them in `unparsed`), so that a run can show them."""
    objects = sample.world.objects
    if plan is not None:
        actions = [action_from_json(item, objects) for item in plan]
        return PlanParse(actions, None, "json") if actions else PlanParse(None, "empty plan")
    return parse_plan(plan_block(response), objects)  # a RISK-AWARE answer's <plan> block, else all of it


def plan_actions(sample: Sample, plan: Sequence[Mapping[str, Any]] | None, response: str | None
                 ) -> tuple[list[Action] | None, str | None, int]:
    """`read_plan` as (actions, error, number of unused lines); (None, reason) when there is no plan."""
    parsed = read_plan(sample, plan, response)
    return parsed.actions, parsed.error, parsed.unparsed_lines


def run_episode(sample: Sample, actions: Sequence[Action] | None, *, variant: str = "base",
                parse_error: str | None = None, on_failure: str = "continue", unparsed_lines: int = 0,
                step_cap: bool = True, unparsed: Sequence[str] = ()) -> tuple[SampleResult, Trace]:
    """Execute `actions` from the sample's initial state (at most `sample.step_cap` steps) and score the trace."""
    if actions is None or not actions:
        trace = Trace(initial=sample.initial_state, parse_error=parse_error or "empty plan")
    else:
        trace = execute(sample.initial_state, sample.world, actions, on_failure=on_failure,
                        max_steps=sample.step_cap if step_cap else None)
    result = score_trace(sample, trace, variant)
    result.unparsed_lines = unparsed_lines
    result.unparsed = tuple(unparsed)
    return result, trace
