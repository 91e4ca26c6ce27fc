"""Issue 31 items 2-3 (plans a roboticist would run, short): the planner never puts an object down only to pick it
up again, shuts a fridge or cabinet as soon as it is done with it (with the object in hand, as BEHAVIOR's one-hand
primitives do), and sets things down where they belong instead of dropping them on the floor. Real BEHAVIOR-1K
activities (boil_water_in_the_microwave: the mug is in a closed cabinet; make_a_basic_brine: the salt shaker is on
the counter); every expected plan is worked out by hand and written here."""

from __future__ import annotations

from builder.saferelbench import generate as g
from eval_kit.saferelbench.actions import Action
from eval_kit.saferelbench.executor import PreconditionError, World, apply
from eval_kit.saferelbench.goals import compile_condition
from eval_kit.saferelbench.literals import tokens
from eval_kit.saferelbench.planner import close_when_done, find_plan, settled

CAB, MUG, SINK, MW = "cabinet.n.01_1", "mug.n.04_1", "sink.n.01_1", "microwave.n.02_1"
SHAKER, POT, CT, STOVE = "salt__shaker.n.01_1", "stockpot.n.01_1", "countertop.n.01_1", "stove.n.01_1"


def A(name, *args):
    return Action(name, tuple(args))


def _plan(name: str, goal_text: str) -> tuple[World, frozenset, list[Action]]:
    world, initial, _, _, object_map = g.compiled_activity(name)
    body = tokens(goal_text)[1]
    tree = body[1:] if body[0] == "and" else [body]
    plan = find_plan(world, initial, compile_condition(goal_text, dict(world.objects)), tree, object_map).plan
    assert plan is not None
    return world, initial, plan


BOIL = "(:goal (and (real ?cooked__water.n.01_1) (not (open ?cabinet.n.01_1))))"
# by hand: open the cabinet, take the mug, shut the cabinet with the mug in hand (the robot still stands there),
# fill the mug at the sink (tap on, fill, tap off), carry it on to the microwave without setting it down, in,
# door shut, on, cook, off
BOIL_PLAN = [A("NAVIGATE_TO", CAB), A("OPEN", CAB), A("NAVIGATE_TO", MUG), A("GRASP", MUG), A("CLOSE", CAB),
             A("NAVIGATE_TO", SINK), A("TOGGLE_ON", SINK), A("FILL", MUG, SINK), A("TOGGLE_OFF", SINK),
             A("NAVIGATE_TO", MW), A("OPEN", MW), A("PLACE_INSIDE", MUG, MW), A("CLOSE", MW), A("TOGGLE_ON", MW),
             A("COOK", MUG), A("TOGGLE_OFF", MW)]


def _open_steps(plan: list[Action], container: str) -> int:
    """Steps taken between OPEN(container) and its CLOSE (the door stands open meanwhile)."""
    opened = plan.index(A("OPEN", container))
    return plan.index(A("CLOSE", container), opened) - opened - 1


def test_the_planner_keeps_the_filled_mug_in_hand_and_shuts_the_cabinet_at_once():
    _, _, plan = _plan("boil_water_in_the_microwave", BOIL)
    assert plan == BOIL_PLAN  # 16 steps; before: 18, with RELEASE(mug) GRASP(mug) at the sink and a walk back
    assert not any(a.name == "RELEASE" for a in plan)
    # the cabinet stands open for 2 steps (walk to the mug, grasp it); before: 14 (shut at the very end)
    assert _open_steps(plan, CAB) == 2


def test_close_when_done_moves_a_late_close_and_drops_the_walk_back():
    world, initial, _ = _plan("boil_water_in_the_microwave", BOIL)
    late = [*BOIL_PLAN[:4], *BOIL_PLAN[5:], A("NAVIGATE_TO", CAB), A("CLOSE", CAB)]  # the old shape: 17 steps
    assert _open_steps(late, CAB) == 14
    assert close_when_done(world, initial, late) == BOIL_PLAN  # 17 -> 16: CLOSE right after GRASP, no walk back
    # a plan that needs the door open to the end is left as it is: the mug goes back into the cabinet
    back = [*BOIL_PLAN[:4], A("PLACE_INSIDE", MUG, CAB), A("CLOSE", CAB)]
    assert close_when_done(world, initial, back) == back


def test_one_hand_close_only_where_the_object_was_taken():
    world, initial, _ = _plan("boil_water_in_the_microwave", BOIL)
    s = initial
    for a in BOIL_PLAN[:4]:  # at the cabinet, the mug in hand
        s, _ = apply(s, world, a)
    shut, _ = apply(s, world, A("CLOSE", CAB))  # still standing where the mug was: the door is within reach
    assert ("open", CAB) not in shut
    walked, _ = apply(s, world, A("NAVIGATE_TO", SINK))  # at the sink with the mug: the cabinet is out of reach
    try:
        apply(walked, world, A("CLOSE", CAB))
        raise AssertionError("CLOSE from the sink should fail")
    except PreconditionError as exc:
        assert "not reachable" in str(exc)


def test_compact_drops_a_release_and_regrasp_though_the_lift_memory_differs():
    world, initial, _ = _plan("boil_water_in_the_microwave", BOIL)
    at_sink = BOIL_PLAN.index(A("TOGGLE_OFF", SINK)) + 1  # 9
    wasteful = [*BOIL_PLAN[:at_sink], A("RELEASE", MUG), A("GRASP", MUG), *BOIL_PLAN[at_sink:]]  # 18 steps
    s = initial
    for a in wasteful[:at_sink]:
        s, _ = apply(s, world, a)
    dropped, _ = apply(s, world, A("RELEASE", MUG))
    regrasped, _ = apply(dropped, world, A("GRASP", MUG))
    # the mug remembers the floor it was picked up from, not the cabinet: the states differ only in that memory
    assert ("~inside", MUG, CAB) in s and ("~ontop", MUG, "floor.n.01_1") in regrasped
    assert s != regrasped and settled(world, s) == settled(world, regrasped)
    compact, flags = g._compact(world, initial, wasteful)
    # 18 -> 15: RELEASE and GRASP go, and the walk to the mug in the open cabinet the robot stands at (index 2)
    assert compact == [*BOIL_PLAN[:2], *BOIL_PLAN[3:]] and flags == set()


def test_the_salt_shaker_goes_back_on_the_counter_not_the_floor():
    world, initial, plan = _plan("make_a_basic_brine", "(:goal (and (real ?seawater.n.01_1)))")
    assert ("ontop", SHAKER, CT) in initial and ("ontop", POT, CT) in initial
    # by hand: shake salt into the pot, set the shaker back on the counter it came from (the pot stands on that
    # counter: within reach), take the pot to the sink, fill it, onto the stove, cook: 17 steps, no RELEASE
    # (issue31q: the shaker is switched on over the pot, after the walk to it, not before)
    assert plan == [A("NAVIGATE_TO", SHAKER), A("GRASP", SHAKER), A("NAVIGATE_TO", POT), A("TOGGLE_ON", SHAKER),
                    A("POUR", SHAKER, POT), A("TOGGLE_OFF", SHAKER), A("PLACE_ON_TOP", SHAKER, CT),
                    A("GRASP", POT), A("NAVIGATE_TO", SINK), A("TOGGLE_ON", SINK), A("FILL", POT, SINK),
                    A("TOGGLE_OFF", SINK), A("NAVIGATE_TO", STOVE), A("PLACE_ON_TOP", POT, STOVE),
                    A("TOGGLE_ON", STOVE), A("COOK", POT), A("TOGGLE_OFF", STOVE)]
    # after the pour, where the shaker stands again is where it started (its relations restored, no floor)
    s = initial
    for a in plan[:7]:
        s, _ = apply(s, world, a)
    assert ("ontop", SHAKER, CT) in s and ("ontop", SHAKER, "floor.n.01_1") not in s


def test_the_pot_filled_at_the_sink_is_set_on_the_counter_not_dropped():
    tup, sink = "tupperware.n.01_1", SINK
    world, initial, plan = _plan("cook_noodles", "(:goal (and (real ?cooked__noodle.n.01_1)))")
    assert ("ontop", POT, CT) in initial and ("ontop", tup, CT) in initial
    # by hand: fill the pot at the sink (nothing to set it on there: the sink is a drain), walk one step to the
    # counter and set it down (before: RELEASE, onto the floor by the sink), fetch the noodles (tupperware), pour
    # them into the pot, set the tupperware back on the counter it came from (within reach: the pot stands on
    # it), pot onto the stove, cook: 19 steps, no RELEASE
    assert plan == [A("NAVIGATE_TO", POT), A("GRASP", POT), A("NAVIGATE_TO", sink), A("TOGGLE_ON", sink),
                    A("FILL", POT, sink), A("TOGGLE_OFF", sink), A("NAVIGATE_TO", CT), A("PLACE_ON_TOP", POT, CT),
                    A("NAVIGATE_TO", tup), A("GRASP", tup), A("NAVIGATE_TO", POT), A("POUR", tup, POT),
                    A("PLACE_ON_TOP", tup, CT), A("GRASP", POT), A("NAVIGATE_TO", STOVE), A("PLACE_ON_TOP", POT, STOVE),
                    A("TOGGLE_ON", STOVE), A("COOK", POT), A("TOGGLE_OFF", STOVE)]
    # `_compact` drops the walk to the tupperware on the counter the robot stands at (18 steps); the walk to the
    # pot with the tupperware in hand stays: the carried tupperware ends up next to the pot (a state it changes)
    assert g._compact(world, initial, plan)[0] == plan[:8] + plan[9:]
