"""Issue 22 item 1: the executor follows bddl's annotations wherever they bear on an action.

Every object below is a real BEHAVIOR-1K synset, so its abilities, heat-source parameters and transition
rules come from bddl's own data (`bddl/generated_data`); each test writes down the expectation worked out
by hand from that data (quoted in the comments)."""

from __future__ import annotations

import pytest

from eval_kit.saferelbench import knowledge
from eval_kit.saferelbench.actions import Action
from eval_kit.saferelbench.executor import OK, PreconditionError, World, apply, execute

AG, FL, CT = "agent.n.01_1", "floor.n.01_1", "countertop.n.01_1"


def A(name, *args):
    return Action(name, tuple(args))


def world(*instances: str, extra: dict[str, set[str]] | None = None) -> World:
    """instances like 'oven.n.01_1'; abilities from bddl (knowledge.abilities) plus `extra`."""
    objects = {AG: "agent.n.01", FL: "floor.n.01", CT: "countertop.n.01"}
    objects.update({i: i.rsplit("_", 1)[0] for i in instances})
    abilities = {i: set(knowledge.abilities(s)) | (extra or {}).get(i, set()) for i, s in objects.items()}
    return World.build(objects, abilities)


def state(*lits: str) -> frozenset:
    return frozenset(tuple(lit.split()) for lit in lits)


def fails(s, w, action, message_part: str) -> None:
    with pytest.raises(PreconditionError, match=message_part):
        apply(s, w, action)


# --- heat sources: requires_closed / requires_toggled_on / requires_inside ----------------------------------


OVEN, PIE = "oven.n.01_1", "apple_pie.n.01_1"


def test_bddl_annotates_the_heat_sources_the_executor_reads():
    # bddl 3.6.0 propagated_annots_params.json, quoted by hand
    assert knowledge.heat_params("oven.n.01")["requires_closed"] == 1.0
    assert knowledge.heat_params("microwave.n.02")["requires_inside"] == 1.0
    assert knowledge.heat_params("stove.n.01")["requires_inside"] == 0.0
    assert knowledge.heat_params("toaster.n.02")["requires_closed"] == 0.0


def test_an_oven_with_its_door_open_does_not_cook():
    w = world(OVEN, PIE)
    on_open = state(f"inside {PIE} {OVEN}", f"open {OVEN}", f"toggled_on {OVEN}", f"nextto {AG} {OVEN}")
    # oven: requires_closed 1.0 -> door open, no heat
    fails(on_open, w, A("COOK", PIE), "not on or in an active heat source")
    closed = on_open - {("open", OVEN)}
    after, _ = apply(closed, w, A("COOK", PIE))
    assert ("cooked", PIE) in after and ("hot", PIE) in after
    # requires_toggled_on 1.0: closed but off -> no heat
    fails(closed - {("toggled_on", OVEN)}, w, A("COOK", PIE), "not on or in an active heat source")


def test_a_source_that_requires_inside_does_not_heat_what_sits_on_it():
    toaster, bread = "toaster.n.02_1", "bread_slice.n.01_1"
    w = world(toaster, bread, extra={toaster: {"container"}})
    # toaster: requires_inside 1.0 -> bread on top stays cold; bread inside toasts
    on_top = state(f"ontop {bread} {toaster}", f"toggled_on {toaster}", f"nextto {AG} {toaster}")
    fails(on_top, w, A("COOK", bread), "not on or in an active heat source")
    inside = state(f"inside {bread} {toaster}", f"toggled_on {toaster}", f"nextto {AG} {toaster}")
    assert ("cooked", bread) in apply(inside, w, A("COOK", bread))[0]
    # stove: requires_inside 0.0 -> a pan on top of it heats
    stove, pan, egg = "stove.n.01_1", "frying_pan.n.01_1", "egg.n.02_1"
    w2 = world(stove, pan, egg)
    s = state(f"ontop {pan} {stove}", f"inside {egg} {pan}", f"toggled_on {stove}", f"nextto {AG} {stove}")
    assert ("cooked", egg) in apply(s, w2, A("COOK", egg))[0]


# --- nothing through a closed container ----------------------------------------------------------------------

CAB, TOASTER = "cabinet.n.01_1", "toaster.n.02_1"


def test_no_toggle_through_a_closed_cabinet_door():
    w = world(CAB, TOASTER)
    s = state(f"inside {TOASTER} {CAB}", f"toggled_on {TOASTER}", f"nextto {AG} {CAB}")
    # the toaster is reachable (the agent stands at the cabinet) but the door is shut: TOGGLE_OFF fails
    fails(s, w, A("TOGGLE_OFF", TOASTER), f"inside closed {CAB}")
    trace = execute(s, w, [A("TOGGLE_OFF", TOASTER), A("OPEN", CAB), A("TOGGLE_OFF", TOASTER)])
    assert [step.status for step in trace.steps] == ["failed", OK, OK]
    assert ("toggled_on", TOASTER) not in trace.final


def test_no_grasp_cut_fill_or_open_through_a_closed_container():
    fridge, apple, knife, bowl, box = ("electric_refrigerator.n.01_1", "apple.n.01_1", "carving_knife.n.01_1",
                                       "bowl.n.01_1", "lunch_box.n.01_1")
    bottle, oil = "olive_oil__bottle.n.01_1", "olive_oil.n.01_1"
    w = world(fridge, apple, knife, bowl, box, bottle, oil, extra={box: {"openable"}})
    s = state(f"inside {apple} {fridge}", f"inside {box} {fridge}", f"inside {bottle} {fridge}",
              f"filled {bottle} {oil}", f"grasped {AG} {knife}", f"nextto {AG} {fridge}")
    fails(s, w, A("CUT", apple), f"inside closed {fridge}")
    fails(s, w, A("OPEN", box), f"inside closed {fridge}")
    held_bowl = (s - {("grasped", AG, knife)}) | {("grasped", AG, bowl)}
    fails(held_bowl, w, A("FILL", bottle), f"inside closed {fridge}")
    empty_hand = s - {("grasped", AG, knife)}
    fails(empty_hand, w, A("GRASP", apple), f"inside closed {fridge}")
    opened = s | {("open", fridge)}
    after, _ = apply(opened, w, A("CUT", apple))
    assert not any(apple in lit for lit in after)  # with the door open the cut goes through: the apple is cut


# --- one cut makes one object's pieces -----------------------------------------------------------------------


def test_one_cut_makes_the_two_halves_of_one_log():
    logs = ["log.n.01_1", "log.n.01_2"]
    halves = [f"half__log.n.01_{i}" for i in range(1, 5)]
    axe = "carving_knife.n.01_1"
    w = world(*logs, *halves, axe)
    s = state(*(f"ontop {x} {CT}" for x in logs), *(f"future {h}" for h in halves),
              f"grasped {AG} {axe}", f"nextto {AG} {CT}")
    # bddl slicing.json: "log.n.01-slicing" outputs {"half__log.n.01": 2}
    assert knowledge.slice_count("log.n.01") == 2
    after, _ = apply(s, w, A("CUT", "log.n.01_1"))
    real = sorted(h for h in halves if ("real", h) in after)
    assert real == ["half__log.n.01_1", "half__log.n.01_2"]          # two pieces, not four
    assert ("future", "half__log.n.01_3") in after and ("ontop", "log.n.01_2", CT) in after  # log 2 untouched
    assert ("ontop", "half__log.n.01_1", CT) in after                 # the pieces lie where the log lay
    after2, _ = apply(after, w, A("CUT", "log.n.01_2"))
    assert all(("real", h) in after2 for h in halves)


# --- transitions consume and produce exactly what bddl's rules say -------------------------------------------

STOVE, POT = "stove.n.01_1", "stockpot.n.01_1"
RICE, WATER, COOKED_RICE = "brown_rice.n.01_1", "water.n.06_1", "cooked__brown_rice.n.01_1"


def test_brown_rice_is_water_cooked_only_with_water():
    w = world(STOVE, POT, RICE, WATER, COOKED_RICE)
    # substance_watercooking.json: brown_rice.n.01 + cooked__water.n.01 -> cooked__brown_rice.n.01
    base = state(f"ontop {POT} {STOVE}", f"toggled_on {STOVE}", f"nextto {AG} {STOVE}",
                 f"filled {POT} {RICE}", f"contains {POT} {RICE}", f"future {COOKED_RICE}")
    dry, _ = apply(base, w, A("COOK", POT))
    assert ("future", COOKED_RICE) in dry and ("filled", POT, RICE) in dry   # dry rice does not cook
    wet, _ = apply(base | {("filled", POT, WATER), ("contains", POT, WATER)}, w, A("COOK", POT))
    assert ("real", COOKED_RICE) in wet and ("filled", POT, COOKED_RICE) in wet
    # both inputs are consumed: neither the raw rice nor the water is left in the pot
    assert not {("filled", POT, RICE), ("contains", POT, RICE), ("filled", POT, WATER)} & wet


def test_a_machine_rule_needs_its_input_counts():
    blender = "blender.n.01_1"
    cloves = ["clove.n.03_1", "clove.n.03_2"]
    sugar, cayenne, chili, jerk = "brown_sugar.n.01_1", "cayenne.n.02_1", "chili.n.02_1", "jerk_seasoning.n.01_1"
    w = world(blender, *cloves, sugar, cayenne, chili, jerk)
    # single_toggleable_machine.json "jerk_seasoning": brown_sugar 1, cayenne 1, chili 1, clove.n.03 2
    one_clove = state(f"inside {cloves[0]} {blender}", f"inside {chili} {blender}", f"contains {blender} {sugar}",
                      f"contains {blender} {cayenne}", f"future {jerk}", f"nextto {AG} {blender}",
                      f"ontop {cloves[1]} {CT}")
    after, _ = apply(one_clove, w, A("TOGGLE_ON", blender))
    assert ("future", jerk) in after and ("inside", cloves[0], blender) in after   # one clove of two: nothing
    two = (one_clove - {("ontop", cloves[1], CT)}) | {("inside", cloves[1], blender)}
    after, _ = apply(two, w, A("TOGGLE_ON", blender))
    assert ("real", jerk) in after and ("contains", blender, jerk) in after
    assert not any(c in lit for c in (*cloves, chili) for lit in after)           # the objects are used up
    assert ("contains", blender, sugar) not in after


def test_a_recipe_reads_its_input_states_and_output_count():
    sheet, dough = "cookie_sheet.n.01_1", "sugar_cookie_dough.n.01_1"
    cookies = [f"sugar_cookie.n.01_{i}" for i in range(1, 9)]
    w = world(OVEN, sheet, dough, *cookies)
    # heat_cook.json "sugar_cookies": dough (cooked False) on a cookie sheet in an oven -> 6 sugar cookies, cooked
    s = state(f"inside {sheet} {OVEN}", f"ontop {dough} {sheet}", f"toggled_on {OVEN}", f"nextto {AG} {OVEN}",
              *(f"future {c}" for c in cookies))
    after, _ = apply(s, w, A("COOK", sheet))
    made = [c for c in cookies if ("real", c) in after]
    assert len(made) == 6 and all(("cooked", c) in after for c in made)
    assert ("future", cookies[6]) in after and not any(dough in lit for lit in after)
    already_cooked, _ = apply(s | {("cooked", dough)}, w, A("COOK", sheet))
    assert all(("future", c) in already_cooked for c in cookies)                 # the rule needs raw dough


# --- nothing is taken out of what is not a container of that substance ---------------------------------------


def test_fill_only_from_a_container_of_that_substance():
    bowl, diced = "bowl.n.01_1", "diced__apple.n.01_1"
    other, sink = "bowl.n.01_2", "sink.n.01_1"
    w = world(OVEN, bowl, other, diced, sink, WATER)
    # diced apple lying in an open oven: the oven is a fillable scene object and the apple is not a liquid
    s = state(f"open {OVEN}", f"contains {OVEN} {diced}", f"filled {OVEN} {diced}", f"grasped {AG} {bowl}",
              f"nextto {AG} {OVEN}", f"insource {sink} {WATER}")
    fails(s, w, A("FILL", OVEN), "has no substance to fill from")
    # the same pieces in another bowl (a movable vessel) fill the held bowl
    in_bowl = state(f"ontop {other} {CT}", f"contains {other} {diced}", f"grasped {AG} {bowl}", f"nextto {AG} {CT}")
    assert ("filled", bowl, diced) in apply(in_bowl, w, A("FILL", other))[0]
    # a sink gives water only while on (particleSource conditions: toggled_on True)
    at_sink = state(f"grasped {AG} {bowl}", f"nextto {AG} {sink}", f"insource {sink} {WATER}")
    fails(at_sink, w, A("FILL", sink), "has no substance to fill from")
    assert ("filled", bowl, WATER) in apply(at_sink | {("toggled_on", sink)}, w, A("FILL", sink))[0]


# --- the witness audit reads bddl's data, not the executor ---------------------------------------------------


def _audit_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "saferel_witness_audit.py"
    spec = importlib.util.spec_from_file_location("saferel_witness_audit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_audit_flags_each_contradiction_by_hand():
    audit = _audit_module()
    objects = {OVEN: "oven.n.01", PIE: "apple_pie.n.01", AG: "agent.n.01", CAB: "cabinet.n.01",
               TOASTER: "toaster.n.02", "log.n.01_1": "log.n.01",
               **{f"half__log.n.01_{i}": "half__log.n.01" for i in range(1, 5)}}
    open_oven = state(f"inside {PIE} {OVEN}", f"open {OVEN}", f"toggled_on {OVEN}")
    # COOK with the door open: one heat finding; closed: none
    assert [p.split(":")[0] for p in audit.audit_step(open_oven, open_oven, objects, A("COOK", PIE))] == ["heat"]
    closed = open_oven - {("open", OVEN)}
    assert audit.audit_step(closed, closed, objects, A("COOK", PIE)) == []
    # TOGGLE_OFF of a toaster inside a closed cabinet: one enclosure finding
    shut = state(f"inside {TOASTER} {CAB}", f"toggled_on {TOASTER}")
    assert [p.split(":")[0] for p in audit.audit_step(shut, shut, objects, A("TOGGLE_OFF", TOASTER))] == ["enclosure"]
    # a cut that makes all four halves: bddl's rule makes 2 -> one cut finding
    before = state("ontop log.n.01_1 floor.n.01_1", *(f"future half__log.n.01_{i}" for i in range(1, 5)))
    after = state(*(f"ontop half__log.n.01_{i} floor.n.01_1" for i in range(1, 5)),
                  *(f"real half__log.n.01_{i}" for i in range(1, 5)))
    found = audit.audit_step(before, after, objects, A("CUT", "log.n.01_1"))
    assert [p.split(":")[0] for p in found] == ["cut"] and "made 4 pieces" in found[0]
