"""Every primitive's preconditions and effects in the symbolic executor."""

from __future__ import annotations

import pytest

from eval_kit.saferelbench.actions import Action, make_action, trigger_matches
from eval_kit.saferelbench.executor import FAILED, OK, PreconditionError, World, apply, execute

AG, FL = "agent.n.01_1", "floor.n.01_1"
OBJECTS = {
    AG: "agent.n.01", FL: "floor.n.01", "apple.n.01_1": "apple.n.01", "fridge.n.01_1": "fridge.n.01",
    "counter.n.01_1": "counter.n.01", "stove.n.01_1": "stove.n.01", "bowl.n.01_1": "bowl.n.01",
    "table.n.01_1": "table.n.01",
}
ABILITIES = {
    "apple.n.01_1": {"graspable"}, "fridge.n.01_1": {"openable", "container"}, "stove.n.01_1": {"toggleable"},
    "bowl.n.01_1": {"graspable", "container"},
}
WORLD = World.build(OBJECTS, ABILITIES)
START = frozenset({
    ("ontop", AG, FL), ("ontop", "apple.n.01_1", "counter.n.01_1"), ("ontop", "bowl.n.01_1", "counter.n.01_1"),
})


def act(name, *args):
    return Action(name, tuple(args))


def run(state, *actions):
    for a in actions:
        state, _ = apply(state, WORLD, a)
    return state


def fails(state, action, message):
    with pytest.raises(PreconditionError, match=message):
        apply(state, WORLD, action)


def test_navigate_moves_the_agent_only_next_to_the_target():
    s = run(START, act("NAVIGATE_TO", "counter.n.01_1"), act("NAVIGATE_TO", "fridge.n.01_1"))
    assert ("nextto", AG, "fridge.n.01_1") in s and ("nextto", AG, "counter.n.01_1") not in s
    fails(START, act("NAVIGATE_TO", "ghost.n.01_1"), "unknown object")
    fails(START, act("NAVIGATE_TO", AG), "agent")


def test_grasp_preconditions_and_effects():
    fails(START, act("GRASP", "apple.n.01_1"), "not reachable")
    at_counter = run(START, act("NAVIGATE_TO", "counter.n.01_1"))
    fails(at_counter, act("GRASP", "counter.n.01_1"), "cannot be grasped")
    s = run(at_counter, act("GRASP", "apple.n.01_1"))
    assert ("grasped", AG, "apple.n.01_1") in s and ("ontop", "apple.n.01_1", "counter.n.01_1") not in s
    fails(s, act("GRASP", "bowl.n.01_1"), "hand is full")


def test_grasp_inside_a_closed_container_fails_until_opened():
    start = (START | {("inside", "bowl.n.01_1", "fridge.n.01_1")}) - {("ontop", "bowl.n.01_1", "counter.n.01_1")}
    s = run(start, act("NAVIGATE_TO", "fridge.n.01_1"))
    fails(s, act("GRASP", "bowl.n.01_1"), "closed fridge")
    s = run(s, act("OPEN", "fridge.n.01_1"), act("GRASP", "bowl.n.01_1"))
    assert ("grasped", AG, "bowl.n.01_1") in s


def test_grasp_leaves_objects_resting_on_the_grasped_object():
    start = (START | {("ontop", "apple.n.01_1", "bowl.n.01_1")}) - {("ontop", "apple.n.01_1", "counter.n.01_1")}
    s = run(start, act("NAVIGATE_TO", "counter.n.01_1"), act("GRASP", "bowl.n.01_1"))
    assert ("ontop", "apple.n.01_1", "bowl.n.01_1") in s


def test_release_drops_the_held_object_on_the_floor():
    fails(START, act("RELEASE"), "needs an object in hand")
    s = run(START, act("NAVIGATE_TO", "counter.n.01_1"), act("GRASP", "apple.n.01_1"))
    fails(s, act("RELEASE", "bowl.n.01_1"), "not in hand")
    new, recorded = apply(s, WORLD, act("RELEASE"))
    assert ("ontop", "apple.n.01_1", FL) in new and ("grasped", AG, "apple.n.01_1") not in new
    assert recorded == act("RELEASE", "apple.n.01_1")


def test_place_on_top_acts_on_the_held_object_and_records_both_arguments():
    s = run(START, act("NAVIGATE_TO", "counter.n.01_1"))
    fails(s, act("PLACE_ON_TOP", "table.n.01_1"), "needs an object in hand")
    s = run(s, act("GRASP", "apple.n.01_1"))
    fails(s, act("PLACE_ON_TOP", "table.n.01_1"), "not reachable")
    fails(s, act("PLACE_ON_TOP", "bowl.n.01_1", "counter.n.01_1"), "not in hand")
    new, recorded = apply(s, WORLD, act("PLACE_ON_TOP", "counter.n.01_1"))
    assert ("ontop", "apple.n.01_1", "counter.n.01_1") in new and ("grasped", AG, "apple.n.01_1") not in new
    assert recorded == act("PLACE_ON_TOP", "apple.n.01_1", "counter.n.01_1")


def test_place_inside_needs_an_open_container():
    s = run(START, act("NAVIGATE_TO", "counter.n.01_1"), act("GRASP", "apple.n.01_1"))
    fails(s, act("PLACE_INSIDE", "apple.n.01_1", "counter.n.01_1"), "not a container")
    s = run(s, act("NAVIGATE_TO", "fridge.n.01_1"))
    fails(s, act("PLACE_INSIDE", "apple.n.01_1", "fridge.n.01_1"), "closed")
    s = run(s, act("OPEN", "fridge.n.01_1"), act("PLACE_INSIDE", "apple.n.01_1", "fridge.n.01_1"))
    assert ("inside", "apple.n.01_1", "fridge.n.01_1") in s


def test_place_next_to_joins_the_targets_support():
    s = run(START, act("NAVIGATE_TO", "counter.n.01_1"), act("GRASP", "apple.n.01_1"),
            act("PLACE_NEXT_TO", "apple.n.01_1", "bowl.n.01_1"))
    assert ("nextto", "apple.n.01_1", "bowl.n.01_1") in s and ("ontop", "apple.n.01_1", "counter.n.01_1") in s


def test_open_close():
    fails(START, act("OPEN", "fridge.n.01_1"), "not reachable")
    s = run(START, act("NAVIGATE_TO", "fridge.n.01_1"))
    fails(s, act("CLOSE", "fridge.n.01_1"), "already closed")
    s = run(s, act("OPEN", "fridge.n.01_1"))
    assert ("open", "fridge.n.01_1") in s
    fails(s, act("OPEN", "fridge.n.01_1"), "already open")
    assert ("open", "fridge.n.01_1") not in run(s, act("CLOSE", "fridge.n.01_1"))
    fails(run(START, act("NAVIGATE_TO", "stove.n.01_1")), act("OPEN", "stove.n.01_1"), "cannot be opened")


def test_toggle_on_off():
    s = run(START, act("NAVIGATE_TO", "stove.n.01_1"))
    fails(s, act("TOGGLE_OFF", "stove.n.01_1"), "already off")
    s = run(s, act("TOGGLE_ON", "stove.n.01_1"))
    assert ("toggled_on", "stove.n.01_1") in s
    fails(s, act("TOGGLE_ON", "stove.n.01_1"), "already on")
    assert ("toggled_on", "stove.n.01_1") not in run(s, act("TOGGLE_OFF", "stove.n.01_1"))
    fails(run(START, act("NAVIGATE_TO", "fridge.n.01_1")), act("TOGGLE_ON", "fridge.n.01_1"), "cannot be toggled")


def test_unknown_action_and_argument_count_fail():
    fails(START, act("TELEPORT", "apple.n.01_1"), "unknown action")
    fails(START, act("OPEN", "fridge.n.01_1", "apple.n.01_1"), "one object argument")


def test_failed_steps_are_recorded_and_execution_continues_or_stops():
    plan = [act("GRASP", "apple.n.01_1"), act("NAVIGATE_TO", "counter.n.01_1"), act("GRASP", "apple.n.01_1")]
    trace = execute(START, WORLD, plan)
    assert [s.status for s in trace.steps] == [FAILED, OK, OK]
    assert trace.steps[0].before == trace.steps[0].after and "not reachable" in trace.steps[0].error
    assert ("grasped", AG, "apple.n.01_1") in trace.final
    stopped = execute(START, WORLD, plan, on_failure="stop")
    assert [s.status for s in stopped.steps] == [FAILED] and stopped.final == START


def test_action_normalisation_and_trigger_matching():
    a = make_action("pick up", [" 'Apple.N.01' "], OBJECTS)
    assert a == Action("GRASP", ("apple.n.01_1",))
    place = Action("PLACE_ON_TOP", ("apple.n.01_1", "stove.n.01_1"))
    assert trigger_matches(Action("PLACE_ON_TOP", ("stove.n.01_1",)), place)
    assert trigger_matches(Action("PLACE_ON_TOP", ("*", "stove.n.01_1")), place)
    assert not trigger_matches(Action("PLACE_ON_TOP", ("bowl.n.01_1", "stove.n.01_1")), place)
    assert not trigger_matches(Action("PLACE_INSIDE", ("stove.n.01_1",)), place)
    assert trigger_matches(Action("RELEASE", ()), Action("RELEASE", ("apple.n.01_1",)))
    assert not trigger_matches(Action("RELEASE", ("bowl.n.01_1",)), Action("RELEASE", ("apple.n.01_1",)))
