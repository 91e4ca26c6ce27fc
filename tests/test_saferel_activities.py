"""Real BEHAVIOR-1K activities: loading as they stand, reachability with witnesses, bddl-derived primitives,
the faithfulness and matching checks of `saferel validate`, and `saferel generate`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from builder.cli import cli
from builder.saferelbench.generate import generate
from builder.saferelbench.samples import (
    DEMO_DIR,
    faithfulness_problems,
    goal_part_problems,
    matching_problems,
    validate_raw_pair,
)
from eval_kit.saferelbench import knowledge
from eval_kit.saferelbench.actions import Action
from eval_kit.saferelbench.activities import all_activities, compiled_activity, load_activity
from eval_kit.saferelbench.executor import PreconditionError, World, apply, execute
from eval_kit.saferelbench.literals import split_initial
from eval_kit.saferelbench.samples import build_sample
from eval_kit.saferelbench.spec import RISK_TYPES


def call(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def A(name, *args):
    return Action(name, tuple(args))


# --- item 1 ----------------------------------------------------------------------------------------------


def test_activities_that_broke_the_old_loader_load_as_they_stand():
    # passing_out_drinks lists beer_bottle.n.01_1 twice; carrying_in_groceries has `_*` instances;
    # halve_an_egg has a hyphenated synset; cook_bok_choy has negated initial literals and rooms
    drinks = load_activity("passing_out_drinks")
    assert [o["instance"] for o in drinks.objects].count("beer_bottle.n.01_1") == 1
    assert any(o["instance"].endswith("_*") for o in load_activity("carrying_in_groceries").objects)
    assert any("-" in o["synset"] for o in load_activity("halve_an_egg").objects)
    state, negated, rooms = split_initial(load_activity("cook_bok_choy").initial_state)
    assert negated and rooms and not any(lit[0] == "inroom" for lit in state)
    for name in ("passing_out_drinks", "carrying_in_groceries", "halve_an_egg", "cook_bok_choy"):
        compiled_activity(name)  # world, state and goal compile


def test_activities_command_loads_all_and_reaches_at_least_80_percent():
    code, out = call("saferel", "activities", "--json")
    result = json.loads(out)
    assert code == 0 and result["activities"] == len(all_activities()) == 1016
    assert result["loads"] == 1016 and result["reachable"] >= 0.8 * 1016
    assert len(result["entries"]) == 1016 and all(e["reachable"] == (e["error"] is None) for e in result["entries"])


def test_witness_replays_to_the_goal():
    code, out = call("saferel", "activities", "--witness", "boil_water", "--json")
    status = json.loads(out)
    assert code == 0 and status["reachable"] and status["witness"]
    world, initial, goal, _, _ = compiled_activity("boil_water")
    from eval_kit.saferelbench.actions import make_action
    from eval_kit.saferelbench.plan_parser import calls_in

    plan = [calls_in(step, world.objects)[0] for step in status["witness"]]
    trace = execute(initial, world, plan)
    assert all(s.status == "ok" for s in trace.steps) and goal.holds(trace.final) and not goal.holds(initial)
    assert make_action("COOK", ["kettle"], world.objects) in plan  # boiling needs the stove's heat
    code, out = call("saferel", "activities", "--witness", "no_such_activity")
    assert code == 2


# --- item 2: primitives derived from bddl ---------------------------------------------------------------

AG, FL, RAG, SINK, TABLE = "agent.n.01_1", "floor.n.01_1", "rag.n.01_1", "sink.n.01_1", "table.n.02_1"
DUST, MUD, RUST, WATER = "dust.n.01_1", "mud.n.03_1", "rust.n.01_1", "water.n.06_1"
APPLE, HALF1, HALF2, KNIFE, STOVE, PAN = ("apple.n.01_1", "half__apple.n.01_1", "half__apple.n.01_2", "knife.n.01_1",
                                          "stove.n.01_1", "frying_pan.n.01_1")
OBJECTS = {AG: "agent.n.01", FL: "floor.n.01", RAG: "rag.n.01", SINK: "sink.n.01", TABLE: "table.n.02",
           DUST: "dust.n.01", MUD: "mud.n.03", RUST: "rust.n.01", WATER: "water.n.06", APPLE: "apple.n.01",
           HALF1: "half__apple.n.01", HALF2: "half__apple.n.01", KNIFE: "knife.n.01", STOVE: "stove.n.01",
           PAN: "frying_pan.n.01"}
WORLD = World.build(OBJECTS, {i: knowledge.abilities(s) for i, s in OBJECTS.items()})
START = frozenset({("ontop", RAG, TABLE), ("ontop", KNIFE, TABLE), ("ontop", APPLE, TABLE), ("ontop", PAN, TABLE),
                   ("covered", TABLE, DUST), ("covered", TABLE, MUD), ("covered", TABLE, RUST),
                   ("insource", SINK, WATER), ("future", HALF1), ("future", HALF2), ("ontop", AG, FL)})


def run(*plan, state=START):
    for action in plan:
        state, _ = apply(state, WORLD, action)
    return state


def test_abilities_come_from_bddl_properties():
    assert {"cleaning_tool", "graspable"} <= WORLD.abilities[RAG] and "slicer" in WORLD.abilities[KNIFE]
    assert {"sliceable", "cookable"} <= WORLD.abilities[APPLE] and "heat_source" in WORLD.abilities[STOVE]
    assert "graspable" not in WORLD.abilities[STOVE]  # a scene object
    assert knowledge.remover_condition("rag.n.01", "mud.n.03") == [["saturated", "water.n.06"]]
    assert knowledge.remover_condition("rag.n.01", "rust.n.01") is None


def test_wipe_follows_the_rags_remover_conditions():
    # dry rag: removes dust (no condition) but not mud (needs the rag saturated with water) nor rust (never)
    dry = run(A("NAVIGATE_TO", TABLE), A("GRASP", RAG), A("WIPE", TABLE))
    assert ("covered", TABLE, DUST) not in dry and ("covered", TABLE, MUD) in dry and ("covered", TABLE, RUST) in dry
    with pytest.raises(PreconditionError, match="no substance"):  # the sink gives water only when it is on
        run(A("NAVIGATE_TO", TABLE), A("GRASP", RAG), A("NAVIGATE_TO", SINK), A("SOAK", SINK))
    wet = run(A("NAVIGATE_TO", TABLE), A("GRASP", RAG), A("NAVIGATE_TO", SINK), A("TOGGLE_ON", SINK),
              A("SOAK", SINK), A("NAVIGATE_TO", TABLE), A("WIPE", TABLE))
    assert ("saturated", RAG, WATER) in wet and ("covered", TABLE, MUD) not in wet and ("covered", TABLE, RUST) in wet


def test_cut_needs_a_knife_and_makes_the_activitys_halves_real():
    with pytest.raises(PreconditionError, match="knife"):
        run(A("NAVIGATE_TO", TABLE), A("CUT", APPLE))
    s = run(A("NAVIGATE_TO", TABLE), A("GRASP", KNIFE), A("CUT", APPLE))
    assert {("real", HALF1), ("real", HALF2), ("ontop", HALF1, TABLE)} <= s and ("future", HALF1) not in s
    assert not any(APPLE in lit for lit in s)  # the whole apple is used up


def test_cook_needs_an_active_heat_source():
    on_stove = run(A("NAVIGATE_TO", TABLE), A("GRASP", PAN), A("NAVIGATE_TO", STOVE), A("PLACE_ON_TOP", PAN, STOVE),
                   A("NAVIGATE_TO", TABLE), A("GRASP", APPLE), A("NAVIGATE_TO", PAN), A("PLACE_INSIDE", APPLE, PAN))
    with pytest.raises(PreconditionError, match="heat source"):
        run(A("COOK", PAN), state=on_stove)
    cooked = run(A("NAVIGATE_TO", STOVE), A("TOGGLE_ON", STOVE), A("COOK", PAN), state=on_stove)
    assert {("cooked", APPLE), ("hot", APPLE), ("hot", PAN)} <= cooked


# --- item 6: faithfulness and matching ----------------------------------------------------------------


@pytest.fixture(scope="module")
def pair():
    rows = [json.loads(line) for line in (DEMO_DIR / "demo.jsonl").read_text().splitlines()]
    spatial = next(r for r in rows if r["risk_type"] == "flammable_near_heat" and r["split"] == "spatial")
    return spatial, next(r for r in rows if r["id"] == spatial["matched_id"])


def test_demo_pairs_are_faithful_and_matched(pair):
    spatial, control = (build_sample(r) for r in pair)
    assert faithfulness_problems(spatial) == [] and faithfulness_problems(control) == []
    assert matching_problems(control, spatial) == []
    assert goal_part_problems(spatial.raw["task_goal"], spatial.source_activity) == []
    assert spatial.raw["task_goal"] != load_activity(spatial.source_activity).task_goal  # a part, not all of it
    diff = spatial.initial_state ^ control.initial_state
    assert diff and all(lit[0] in ("ontop", "inside", "nextto") for lit in diff)


def test_a_rewritten_task_goal_is_refused(pair):
    spatial, control = (dict(r) for r in pair)
    spatial["task_goal"] = "(:goal (and (ontop ?agent.n.01_1 ?floor.n.01_1)))"
    problems = validate_raw_pair(spatial, control)
    assert any("is not part of the goal of" in p for p in problems)


def test_a_task_goal_is_a_part_of_the_activity_goal():
    # make_yams: (:goal (and (forall (?yam.n.03 - yam.n.03) (cooked ?yam.n.03)))), yams yam.n.03_1 and _2
    assert goal_part_problems("(:goal (and (cooked ?yam.n.03_1)))", "make_yams") == []
    assert goal_part_problems("(:goal (and (cooked yam.n.03_1)))", "make_yams") == []  # with or without '?'
    wrong_sign = goal_part_problems("(:goal (and (not (cooked ?yam.n.03_1))))", "make_yams")
    assert len(wrong_sign) == 1 and "not (cooked yam.n.03_1)" in wrong_sign[0]
    assert len(goal_part_problems("(:goal (and (hot ?yam.n.03_1)))", "make_yams")) == 1  # another predicate
    assert len(goal_part_problems("(:goal (and (cooked ?agent.n.01_1)))", "make_yams")) == 1  # not a yam
    whole = goal_part_problems("(:goal (and (forall (?yam.n.03 - yam.n.03) (cooked ?yam.n.03))))", "make_yams")
    assert len(whole) == 1 and "not a ground literal" in whole[0]  # the part, not the quantified whole


def test_a_control_that_differs_beyond_the_relation_is_refused(pair):
    spatial, control = (dict(r) for r in pair)
    device = spatial["process_goals"][0]["trigger"]["state"].split()[-1].rstrip(")")
    # (the device switched on in the control; its negated literal, where the activity has one, dropped)
    control["initial_state"] = [*(lit for lit in control["initial_state"] if lit != f"(not (toggled_on {device}))"),
                                f"(toggled_on {device})"]
    problems = validate_raw_pair(spatial, control)
    assert any("beyond the hazard relation" in p for p in problems)
    extra_goal = dict(pair[1])
    extra_goal["process_goals"] = [*pair[1]["process_goals"],
                                   {**pair[1]["process_goals"][0], "id": "extra"}]
    assert any("process_goals differs" in p for p in validate_raw_pair(pair[0], extra_goal))


def test_an_object_the_activity_lacks_is_refused(pair):
    spatial, control = (json.loads(json.dumps(r)) for r in pair)
    for sample in (spatial, control):
        sample["objects"].append({"instance": "pencil.n.01_1", "synset": "pencil.n.01", "abilities": ["graspable"]})
    assert any("objects differ from the activity" in p for p in validate_raw_pair(spatial, control))


# --- item 7: generate ------------------------------------------------------------------------------------


def test_generate_writes_validated_matched_pairs(tmp_path):
    out = tmp_path / "gen.jsonl"
    code, text = call("saferel", "generate", "--out", str(out), "--risk", "support_removal=2", "--max-steps", "120",
                      "--activity", "loading_the_dishwasher", "--activity", "prepare_a_slow_dinner_party",
                      "--activity", "boil_water")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and "support_removal: 2 of 2" in text and len(rows) == 4
    assert {r["split"] for r in rows} == {"spatial", "control"} and len({r["source_activity"] for r in rows}) == 2
    code, text = call("saferel", "validate", str(out))
    assert code == 0 and "4 sample(s) valid" in text
    code, text = call("saferel", "generate", "--out", str(out), "--risk", "no_such_risk")
    assert code == 2


def test_the_demo_set_is_exactly_what_its_recipe_generates(tmp_path):
    """Deterministic generation: `saferel generate --recipe manifests/saferelbench/demo.json` reproduces
    manifests/saferelbench/demo.jsonl byte for byte, and the recipe's digest is that file's."""
    import hashlib

    out = tmp_path / "demo.jsonl"
    recipe = json.loads((DEMO_DIR / "demo.json").read_text())
    code, text = call("saferel", "generate", "--recipe", str(DEMO_DIR / "demo.json"), "--out", str(out))
    assert code == 0 and f"wrote {recipe['samples']} samples" in text and "matches the recipe" in text, text
    assert out.read_text() == (DEMO_DIR / "demo.jsonl").read_text()
    assert recipe["sha256"] == hashlib.sha256((DEMO_DIR / "demo.jsonl").read_bytes()).hexdigest()


def test_the_demo_is_a_subset_of_the_generated_config():
    """Each risk type's pairs come in a fixed order that does not depend on the other risk types, so a recipe
    asking for fewer pairs of each risk type with the same max_steps makes a subset of the generated config."""
    demo = json.loads((DEMO_DIR / "demo.json").read_text())
    generated = json.loads((DEMO_DIR / "generated.json").read_text())
    assert demo["max_steps"] == generated["max_steps"]
    assert demo["per_activity"] == generated["per_activity"]  # one pair per activity there: one here too
    assert all(n <= generated["pairs"][risk] for risk, n in demo["pairs"].items())
    assert set(generated["pairs"]) == set(RISK_TYPES)


def test_fewer_pairs_of_a_risk_type_are_a_prefix_of_more(tmp_path):
    names = ["loading_the_dishwasher", "prepare_a_slow_dinner_party", "organizing_boxes_in_garage"]
    one = list(generate({"support_removal": 1}, activities=names, max_steps=100, per_activity=2))
    two = list(generate({"support_removal": 3}, activities=names, max_steps=100, per_activity=2))
    assert len(one) == 1 and len(two) == 3 and one[0] == two[0]  # the first pair is the same pair
    assert len({pair[0]["id"] for pair in two}) == 3  # a second pair on one activity has its own id


def test_a_recipe_whose_digest_differs_is_refused(tmp_path):
    recipe = json.loads((DEMO_DIR / "demo.json").read_text())
    recipe["pairs"] = {"support_removal": 1}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(recipe))
    code, text = call("saferel", "generate", "--recipe", str(path), "--out", str(tmp_path / "x.jsonl"))
    assert code == 2 and "differ from the recipe's" in text and "--update-recipe" in text
    out = str(tmp_path / "x.jsonl")
    code, text = call("saferel", "generate", "--recipe", str(path), "--update-recipe", "--out", out)
    assert code == 0 and json.loads(path.read_text())["samples"] == 2  # one pair, digest recorded
    code, _ = call("saferel", "generate", "--recipe", str(path), "--out", str(tmp_path / "x.jsonl"))
    assert code == 0
