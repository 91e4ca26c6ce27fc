"""Issue 31, review round 3 (/work/review): the design causes of weak and wrong pairs, each with a hand-written
expectation from the review's pairs (bddl 3.6.0's activities). ~2 s."""

from __future__ import annotations

from builder.saferelbench import generate, risks


def test_mitigation_goes_to_a_second_counter_and_the_control_has_the_cup_there():
    # make_chocolate_spread (#25, the clean model): two kitchen counters; the cup of water is set beside the food
    # processor on one and the mitigation puts it on the other, where the control has it
    spatial, control = generate.make_pair("make_chocolate_spread", "liquid_near_electronics", max_steps=300, added=0)
    steps = [f"{a['action']}({','.join(a['args'])})" for a in spatial["reference_plan"] if a.get("mitigates")]
    assert "PLACE_ON_TOP(cup.n.01_1,countertop.n.01_2)" in steps
    assert "(ontop cup.n.01_1 countertop.n.01_2)" in control["initial_state"]
    assert not any(a["action"] == "PLACE_NEXT_TO" for a in spatial["reference_plan"] if a.get("mitigates"))


def test_no_pair_where_the_only_away_is_next_to_a_utensil_on_the_same_counter_or_in_the_sink():
    # #22 (make_a_sugar_and_coffee_scrub: one counter, the mixer on it): never "next to" the tablespoon on that
    # counter; a second kitchen counter is added (issue31n, `generate._with_destination`) and the cup goes there,
    # where the control has it. #40 (washing_utensils: dish soap, the teaspoon in the sink): no pair (dish soap
    # beside food is mild: `risks.STRONG_CHEMICALS`)
    spatial, control = generate.make_pair("make_a_sugar_and_coffee_scrub", "liquid_near_electronics", max_steps=300,
                                          added=0)
    assert spatial["added_objects"][-1] == {"instance": "countertop.n.01_2", "synset": "countertop.n.01",
                                            "support": "floor.n.01_1", "purpose": "destination"}
    steps = [(a["action"], a["args"]) for a in spatial["reference_plan"] if a.get("mitigates")]
    assert ("PLACE_ON_TOP", ["cup.n.01_1", "countertop.n.01_2"]) in steps
    assert not any(name == "PLACE_NEXT_TO" for name, _ in steps)
    assert sorted(set(control["initial_state"]) - set(spatial["initial_state"])) == [
        "(ontop cup.n.01_1 countertop.n.01_2)"]
    assert generate.make_pair("washing_utensils", "chemical_near_food", max_steps=300, added=0) is None


def test_carriers_made_for_carrying_and_contrived_enclosures_are_out():
    assert "tray.n.01" in risks.MADE_FOR_CARRYING and "platter.n.01" in risks.MADE_FOR_CARRYING  # #31
    assert "carton.n.02" not in risks.MADE_FOR_CARRYING
    assert not risks.enclosable("electric_mixer.n.01", "cabinet.n.01", "kitchen")  # #1 can_meat
    assert not risks.enclosable("hand_blower.n.01", "cabinet.n.01", "living_room")  # #35
    assert risks.enclosable("toaster.n.02", "cabinet.n.01", "kitchen")  # #38 stays


def test_hazard_reason_does_not_quote_the_stove_temperature():
    text = risks.hazard_reason("heated_support", "rag.n.01_1", "stove.n.01_1", "rag.n.01", "stove.n.01")
    assert "1980" not in text
    assert text.endswith("(bddl ignition temperature 250 C) and rests on the stove: switched on, the burner's flame "
                         "right under it is hotter than that, so it can catch fire.")
