"""Plan parsing (JSON, fenced blocks, call lines) and the three prompt variants."""

from __future__ import annotations

import pytest

from eval_kit.saferelbench.actions import Action
from eval_kit.saferelbench.plan_parser import parse_plan
from eval_kit.saferelbench.prompts import build_prompt
from eval_kit.saferelbench.samples import load_samples

OBJECTS = {"apple.n.01_1": "apple.n.01", "fridge.n.01_1": "fridge.n.01"}
EXPECTED = [Action("OPEN", ("fridge.n.01_1",)), Action("PLACE_INSIDE", ("apple.n.01_1", "fridge.n.01_1"))]


@pytest.mark.parametrize("text", [
    '[{"action": "OPEN", "args": ["fridge.n.01_1"]}, '
    '{"action": "PLACE_INSIDE", "args": ["apple.n.01_1", "fridge.n.01_1"]}]',
    'Sure!\n```json\n{"plan": [{"action": "open", "args": "fridge.n.01_1"}, '
    '{"action": "place inside", "args": ["apple.n.01", "fridge.n.01_1"]}]}\n```\nDone.',
    "<think>GRASP(fridge.n.01_1) maybe?</think>\nPlan:\n1. OPEN(fridge.n.01_1)\n"
    "2. PLACE_INSIDE(apple.n.01_1, fridge.n.01_1)",
    "```\n- OPEN(fridge.n.01_1)\n- PLACE_INSIDE(apple.n.01_1, fridge.n.01_1)\n```",
    'Here: ["OPEN(fridge.n.01_1)", "PLACE_INSIDE(apple.n.01_1, fridge.n.01_1)"] as requested',
    "Step 1: open(fridge.n.01_1)\nThen I (carefully) continue.\nStep 2: put inside(apple.n.01_1, fridge.n.01_1)",
])
def test_accepted_plan_forms(text):
    parsed = parse_plan(text, OBJECTS)
    assert parsed.error is None and parsed.actions == EXPECTED


@pytest.mark.parametrize("text", [None, "   ", "I cannot help with that.", "[]", '{"plan": []}',
                                  "The fridge (on the left) is closed."])
def test_unparseable_or_empty(text):
    parsed = parse_plan(text, OBJECTS)
    assert parsed.actions is None and parsed.error


def test_unknown_upper_case_actions_are_kept_for_the_executor_to_reject():
    parsed = parse_plan("TELEPORT(apple.n.01_1)\nOPEN(fridge.n.01_1)", OBJECTS)
    assert parsed.actions[0] == Action("TELEPORT", ("apple.n.01_1",))


@pytest.fixture(scope="module")
def demo():
    return load_samples("manifests/saferelbench/demo.jsonl")


def test_prompt_variants_add_tips_then_mitigations(demo):
    sample = next(s for s in demo.values() if s.risk_type == "support_removal" and s.split == "spatial")
    load = sample.process_goals[0].mitigation[1].args[0]  # NAVIGATE_TO(support), GRASP(load), ...
    base = build_prompt(sample, "BASE")
    risk = build_prompt(sample, "RISK-AWARE")
    grounded = build_prompt(sample, "action_grounded")
    tip = sample.process_goals[0].tip
    assert sample.instruction in base and load in base and tip not in base
    assert sample.raw["task_goal"] in base  # the activity's real BEHAVIOR-1K goal is shown unchanged
    assert tip in risk and "preventive" in risk and "mitigation:" not in risk
    steps = "; ".join(str(a) for a in sample.process_goals[0].mitigation)
    assert f"mitigation: {steps}" in grounded and f"GRASP({load})" in steps
    assert build_prompt(sample.raw, "base") == base  # a raw dict works too (the runner passes rows)
    with pytest.raises(ValueError, match="unknown prompt variant"):
        build_prompt(sample, "paranoid")


def test_reference_plans_survive_a_prompt_style_round_trip(demo):
    """Writing each reference plan as call lines and parsing it back gives the same actions."""
    for sample in demo.values():
        text = "\n".join(f"{i + 1}. {a}" for i, a in enumerate(sample.reference_plan))
        assert parse_plan(text, sample.world.objects).actions == list(sample.reference_plan)
