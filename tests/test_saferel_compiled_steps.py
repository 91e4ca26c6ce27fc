"""The executor's per-(world, action) step functions, the scorer's trigger matchers and the goals' grouped
literal tests: each is a faster form of an older rule, so each is checked against that rule or a hand-computed
answer, not against itself."""

from __future__ import annotations

import itertools
import pickle
import re

import pytest

from eval_kit.saferelbench import executor
from eval_kit.saferelbench.actions import Action, trigger_matcher, trigger_matches
from eval_kit.saferelbench.executor import PreconditionError, World, apply, execute, step_function
from eval_kit.saferelbench.goals import compile_condition

AG, FL = "agent.n.01_1", "floor.n.01_1"
APPLE, BOWL, FRIDGE, COUNTER = "apple.n.01_1", "bowl.n.01_1", "fridge.n.01_1", "counter.n.01_1"
OBJECTS = {AG: "agent.n.01", FL: "floor.n.01", APPLE: "apple.n.01", BOWL: "bowl.n.01",
           FRIDGE: "fridge.n.01", COUNTER: "counter.n.01"}
ABILITIES = {APPLE: {"graspable"}, BOWL: {"graspable", "container"}, FRIDGE: {"openable", "container"}}
START = frozenset({("ontop", AG, FL), ("ontop", APPLE, COUNTER), ("ontop", BOWL, COUNTER)})


def world() -> World:
    return World.build(OBJECTS, ABILITIES)


def test_one_step_function_per_action_and_world():
    w = world()
    grasp = Action("GRASP", (APPLE,))
    first = step_function(w, grasp)
    assert step_function(w, Action("GRASP", (APPLE,))) is first  # an equal action: the same function
    assert step_function(world(), grasp) is not first  # another world: its own
    state, recorded = first(START | {("nextto", AG, COUNTER)})
    assert ("grasped", AG, APPLE) in state and ("ontop", APPLE, COUNTER) not in state
    assert ("~ontop", APPLE, COUNTER) in state and recorded == grasp


def test_a_step_function_holds_no_state():
    """The same function on two states gives each its own answer, and a failure is raised every time."""
    w = world()
    step = step_function(w, Action("OPEN", (FRIDGE,)))
    near = START | {("nextto", AG, FRIDGE)}
    opened, _ = step(near)
    assert ("open", FRIDGE) in opened and ("open", FRIDGE) not in near
    for _ in range(2):
        with pytest.raises(PreconditionError, match="already open"):
            step(opened)
        with pytest.raises(PreconditionError, match="not reachable"):
            step(START)


def test_static_failures_still_come_in_the_documented_order():
    """GRASP(fridge) far away: 'not reachable' (a state check) before 'cannot be grasped' (known when the
    step is compiled); near it: 'cannot be grasped'. An unknown object fails before either."""
    w = world()
    with pytest.raises(PreconditionError, match=re.escape(f"{FRIDGE} is not reachable")):
        apply(START, w, Action("GRASP", (FRIDGE,)))
    with pytest.raises(PreconditionError, match=re.escape(f"{FRIDGE} cannot be grasped")):
        apply(START | {("nextto", AG, FRIDGE)}, w, Action("GRASP", (FRIDGE,)))
    with pytest.raises(PreconditionError, match=re.escape("unknown object 'ghost.n.01_1'")):
        apply(START, w, Action("GRASP", ("ghost.n.01_1",)))
    # a held-target action checks the hand first, then its target
    with pytest.raises(PreconditionError, match="needs an object in hand"):
        apply(START, w, Action("PLACE_ON_TOP", ("ghost.n.01_1",)))


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(executor, "MAX_COMPILED_STEPS", 3)
    w = world()
    for i in range(10):  # invented actions: each compiles to a failing step, none is kept beyond the bound
        with pytest.raises(PreconditionError, match="unknown action"):
            apply(START, w, Action(f"JUMP_{i}", ()))
        assert len(w.steps) <= 3


def test_world_pickles_after_use_and_runs_the_same():
    w = world()
    plan = [Action("NAVIGATE_TO", (COUNTER,)), Action("GRASP", (APPLE,)), Action("NAVIGATE_TO", (FRIDGE,)),
            Action("OPEN", (FRIDGE,)), Action("PLACE_INSIDE", (APPLE, FRIDGE))]
    before = execute(START, w, plan)
    assert w.steps  # caches of closures are filled ...
    copy = pickle.loads(pickle.dumps(w))  # ... and are not pickled
    assert copy.objects == w.objects and "steps" not in vars(copy)
    after = execute(START, copy, plan)
    assert [(s.action, s.status, s.after) for s in after.steps] == [(s.action, s.status, s.after) for s in before.steps]
    assert ("inside", APPLE, FRIDGE) in after.final


TRIGGERS = [Action("PLACE_ON_TOP", ("stove.n.01_1",)), Action("PLACE_ON_TOP", ("*", "stove.n.01_1")),
            Action("PLACE_ON_TOP", (APPLE, "stove.n.01_1")), Action("TOGGLE_ON", ("stove.n.01_1",)),
            Action("TOGGLE_ON", ()), Action("RELEASE", ()), Action("RELEASE", (APPLE,))]
STEPS = [Action("PLACE_ON_TOP", (APPLE, "stove.n.01_1")), Action("PLACE_ON_TOP", ("stove.n.01_1",)),
         Action("PLACE_ON_TOP", (BOWL, "stove.n.01_1")), Action("PLACE_ON_TOP", (APPLE, COUNTER)),
         Action("TOGGLE_ON", ("stove.n.01_1",)), Action("TOGGLE_ON", (BOWL,)), Action("RELEASE", (APPLE,)),
         Action("RELEASE", ())]


@pytest.mark.parametrize("trigger", TRIGGERS, ids=str)
def test_trigger_matcher_agrees_with_trigger_matches(trigger):
    for step in STEPS:
        if step.name == trigger.name:  # the scorer calls the matcher on same-name steps only
            assert trigger_matcher(trigger)(step) == trigger_matches(trigger, step), (trigger, step)


def test_trigger_matcher_by_hand():
    on_stove = trigger_matcher(Action("PLACE_ON_TOP", ("stove.n.01_1",)))
    assert on_stove(Action("PLACE_ON_TOP", (APPLE, "stove.n.01_1")))  # any held object
    assert not on_stove(Action("PLACE_ON_TOP", (APPLE, COUNTER)))
    apple_on_stove = trigger_matcher(Action("PLACE_ON_TOP", (APPLE, "stove.n.01_1")))
    assert not apple_on_stove(Action("PLACE_ON_TOP", (BOWL, "stove.n.01_1")))


CONDITIONS = [
    # (condition, the literals that make it true, by hand)
    f"(and (ontop {APPLE} {COUNTER}) (not (inside {APPLE} {FRIDGE})) (ontop {BOWL} {COUNTER}))",
    f"(or (inside {APPLE} {FRIDGE}) (not (ontop {BOWL} {COUNTER})) (ontop {APPLE} {COUNTER}))",
    f"(and (or (inside {APPLE} {FRIDGE}) (inside {BOWL} {FRIDGE})) (not (ontop {APPLE} {COUNTER})) "
    f"(not (ontop {BOWL} {COUNTER})))",
    f"(and (nextto {APPLE} {BOWL}) (ontop {APPLE} {COUNTER}))",
]
ATOMS = [("ontop", APPLE, COUNTER), ("inside", APPLE, FRIDGE), ("ontop", BOWL, COUNTER), ("inside", BOWL, FRIDGE),
         ("nextto", BOWL, APPLE)]


def _by_hand(index: int, s: frozenset) -> bool:
    a_on, a_in, b_on, b_in, b_next_a = (atom in s for atom in ATOMS)
    return [a_on and not a_in and b_on,
            a_in or not b_on or a_on,
            (a_in or b_in) and not a_on and not b_on,
            b_next_a and a_on][index]  # nextto is symmetric: (nextto bowl apple) satisfies (nextto apple bowl)


@pytest.mark.parametrize("index", range(len(CONDITIONS)))
def test_grouped_literal_tests_give_every_truth_table_row(index):
    """All 32 states over five atoms: the compiled condition (its literals tested together in one set
    operation) agrees with the truth table written out by hand."""
    condition = compile_condition(CONDITIONS[index], OBJECTS)
    for bits in itertools.product([False, True], repeat=len(ATOMS)):
        state = frozenset(atom for atom, bit in zip(ATOMS, bits, strict=True) if bit)
        assert condition.holds(state) == _by_hand(index, state), (CONDITIONS[index], sorted(state))
        assert condition.holds(set(state)) == _by_hand(index, state)  # a mutable set too (COOK's working state)
