"""Prompts: the contract text, its parser, and the per-scenario category / ground-truth rules."""

import pytest

from builder.movsafebench.hazardforge.prompts import DIRECTIONS, build_prompt, check_scenario, parse_prompt
from eval_kit.errors import BadInput
from eval_kit.movsafebench.spec import CATEGORIES, MOVABLE_CATEGORIES


def test_contract_text():
    assert build_prompt("dog", "left") == "Render a dog, facing left."
    assert build_prompt("cone", "forward", far=True) == "Render a cone, facing forward, make the object smaller."


@pytest.mark.parametrize("category", CATEGORIES)
def test_parse_inverts_build(category):
    for direction in DIRECTIONS:
        for far in (False, True):
            assert parse_prompt(build_prompt(category, direction, far=far)) == (category, direction, far)


@pytest.mark.parametrize("text", [
    "Render a dog.", "Render a unicorn, facing left.", "Render a dog, facing up.", "render a dog, facing left.",
    "Render a dog, facing left, make it smaller.", "",
])
def test_parse_rejects_other_text(text):
    with pytest.raises(ValueError):
        parse_prompt(text)


def test_build_rejects_unknown_values():
    with pytest.raises(BadInput):
        build_prompt("unicorn", "left")
    with pytest.raises(BadInput):
        build_prompt("dog", "sideways")


def test_scenario_rules_follow_table_2():
    for category in CATEGORIES:
        check_scenario("static", "left", category)
        check_scenario("distance", "straight", category)
    for category in MOVABLE_CATEGORIES:
        check_scenario("motion", "right", category)
        check_scenario("intrusion", "straight", category)
    for static_only in ("cone", "rocks", "debris", "roadkill"):
        for scenario in ("motion", "intrusion"):
            with pytest.raises(BadInput, match="table 2"):
                check_scenario(scenario, "left", static_only)
    with pytest.raises(BadInput, match="not allowed for the motion"):
        check_scenario("motion", "straight")
    with pytest.raises(BadInput, match="unknown scenario"):
        check_scenario("flying", "left")
    with pytest.raises(BadInput, match="unknown scenario"):
        check_scenario("no_edit", "left")
    with pytest.raises(BadInput, match="unknown category"):
        check_scenario("static", "left", "unicorn")
