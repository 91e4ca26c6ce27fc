"""saferel generate drops the planner's wasted steps (issue 31, task regime): a walk to an object already within
reach, and nothing else. BEHAVIOR-1K's boil_water: the kettle is in the cabinet the robot stands at and opened."""
from builder.saferelbench import generate as g
from eval_kit.saferelbench.executor import Action

NAV, OPEN, GRASP = "NAVIGATE_TO", "OPEN", "GRASP"
CABINET, KETTLE, STOVE = "cabinet.n.01_1", "kettle.n.01_1", "stove.n.01_1"


def _boil_water():
    world, initial, *_ = g.compiled_activity("boil_water")
    return world, initial, list(g._activity_witness("boil_water"))


def test_walk_to_what_is_within_reach_is_dropped():
    world, initial, witness = _boil_water()
    assert witness[:4] == [Action(NAV, (CABINET,)), Action(OPEN, (CABINET,)), Action(NAV, (KETTLE,)),
                           Action(GRASP, (KETTLE,))]
    compact, flags = g._compact(world, initial, witness)
    # 9 steps -> 8: only the walk to the kettle (inside the open cabinet at hand) goes; the walk to the stove stays
    assert len(witness) == 9 and len(compact) == 8 and flags == set()
    assert compact == witness[:2] + witness[3:]
    assert Action(NAV, (STOVE,)) in compact


def test_only_flagged_keeps_the_twin_steps_and_moves_the_flags():
    world, initial, witness = _boil_water()
    doubled = [witness[0], witness[0], *witness[1:]]  # a second walk to the cabinet, flagged as mitigation
    compact, flags = g._compact(world, initial, doubled, {1}, only_flagged=True)
    assert compact == witness and flags == set()  # the flagged duplicate goes; the unflagged kettle walk stays
    compact, flags = g._compact(world, initial, doubled, {0, 1, 4}, only_flagged=True)
    # the first walk goes, the second is then needed (its flag moves to index 0); index 4 (GRASP kettle) is no
    # walk: it stays, its flag now at index 3
    assert compact == witness and flags == {0, 3} and compact[3] == Action(GRASP, (KETTLE,))
