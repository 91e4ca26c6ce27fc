"""Issue 31 (issue31q): plan causes a scan of every reference plan found after review round 3. A kitchen with no
counter cuts on its base cabinet's top, never in a pot inside the oven or the cabinet; food already in the oven
stays where it is; meat goes into the oven in the activity's skillet, not on the bare rack; a pot is heated on
the stove, never in the microwave; food is cooked in cookware and then served on the plate, not cooked on the
plate. Real BEHAVIOR-1K activities; every expected plan is worked out by hand and written here."""

from __future__ import annotations

from builder.saferelbench import generate as g
from eval_kit.saferelbench.actions import Action
from eval_kit.saferelbench.goals import compile_condition
from eval_kit.saferelbench.literals import tokens
from eval_kit.saferelbench.planner import find_plan

FRIDGE, OVEN, STOVE, CAB = "electric_refrigerator.n.01_1", "oven.n.01_1", "stove.n.01_1", "cabinet.n.01_1"
CT = "countertop.n.01_1"


def A(name, *args):
    return Action(name, tuple(args))


def _plan(name: str, goal_text: str) -> list[Action]:
    world, initial, _, _, object_map = g.compiled_activity(name)
    body = tokens(goal_text)[1]
    tree = body[1:] if body[0] == "and" else [body]
    plan = find_plan(world, initial, compile_condition(goal_text, dict(world.objects)), tree, object_map).plan
    assert plan is not None
    return plan


def test_no_counter_the_chicken_is_diced_on_the_cabinet_top_not_in_the_pot_in_the_oven():
    # cook_chicken's kitchen has no countertop (review round 3, pair 7). issue31u (round 4): the raw chicken is diced
    # on the chopping board, taken out of the cabinet onto its top, and tipped into the stockpot before the oven;
    # never cut in the pot, never in the oven
    chicken, pot, board = "chicken.n.01_1", "stockpot.n.01_1", "chopping_board.n.01_1"
    plan = _plan("cook_chicken", "(:goal (real ?cooked__diced__chicken.n.01_1))")
    assert A("PLACE_ON_TOP", board, CAB) in plan and A("PLACE_ON_TOP", chicken, board) in plan
    assert plan.index(A("DICE", chicken)) < plan.index(A("POUR", board, pot)) < plan.index(A("PLACE_INSIDE", pot, OVEN))
    assert A("PLACE_INSIDE", chicken, pot) not in plan and plan[-3:] == [
        A("TOGGLE_ON", OVEN), A("COOK", pot), A("TOGGLE_OFF", OVEN)]

def test_no_counter_the_onion_is_diced_in_the_pan_off_the_stove():
    # cook_onions: its chopping board (in the cabinet) carries a spatula, so the raw onion is diced in the pan on the
    # cabinet's top, before the pan goes on the stove (issue31u: raw, then cooked), never on the stove
    onion, pan = "vidalia_onion.n.01_1", "frying_pan.n.01_1"
    plan = _plan("cook_onions", "(:goal (real ?cooked__diced__vidalia_onion.n.01_1))")
    assert plan[5:14] == [A("PLACE_ON_TOP", pan, CAB), A("NAVIGATE_TO", onion), A("GRASP", onion),
                          A("NAVIGATE_TO", pan), A("PLACE_INSIDE", onion, pan),
                          A("NAVIGATE_TO", "carving_knife.n.01_1"), A("GRASP", "carving_knife.n.01_1"),
                          A("NAVIGATE_TO", onion), A("DICE", onion)]
    assert plan[-5:] == [A("NAVIGATE_TO", STOVE), A("PLACE_ON_TOP", pan, STOVE), A("TOGGLE_ON", STOVE),
                         A("COOK", pan), A("TOGGLE_OFF", STOVE)]

def test_the_turkey_already_in_the_oven_is_not_picked_up_and_put_back():
    # cook_a_turkey: the turkey lies on wax paper inside the (closed) oven at the start
    assert _plan("cook_a_turkey", "(:goal (cooked ?turkey.n.04_1))") == [
        A("NAVIGATE_TO", OVEN), A("TOGGLE_ON", OVEN), A("COOK", "turkey.n.04_1"), A("TOGGLE_OFF", OVEN)]
    # before: NAVIGATE_TO(oven), OPEN(oven), GRASP(turkey), PLACE_INSIDE(turkey, oven), CLOSE(oven), ...


def test_the_brisket_goes_into_the_oven_in_the_skillet_not_on_the_bare_rack():
    brisket, pan = "brisket.n.01_1", "frying_pan.n.01_1"
    # (review round 6: the skillet comes out of the cabinet onto the cabinet's top, the kitchen's worktop, before
    # the raw brisket goes into it: no meat put into a pan that stays in the cupboard)
    assert _plan("cook_a_brisket", "(:goal (cooked ?brisket.n.01_1))") == [
        A("NAVIGATE_TO", CAB), A("OPEN", CAB), A("NAVIGATE_TO", pan), A("GRASP", pan), A("NAVIGATE_TO", CAB),
        A("PLACE_ON_TOP", pan, CAB), A("NAVIGATE_TO", FRIDGE), A("OPEN", FRIDGE), A("NAVIGATE_TO", brisket),
        A("GRASP", brisket), A("NAVIGATE_TO", pan), A("PLACE_INSIDE", brisket, pan), A("GRASP", pan),
        A("NAVIGATE_TO", OVEN), A("OPEN", OVEN), A("PLACE_INSIDE", pan, OVEN), A("CLOSE", OVEN),
        A("TOGGLE_ON", OVEN), A("COOK", brisket), A("TOGGLE_OFF", OVEN)]


def test_a_pot_of_penne_is_heated_on_the_stove_not_in_the_microwave():
    # making_a_meal has a microwave (listed first) and a stove: a steel stockpot never goes into the microwave
    box, pot = "pasta__box.n.01_1", "stockpot.n.01_1"
    plan = _plan("making_a_meal", "(:goal (real ?cooked__penne.n.01_1))")
    # (review round 5: the stockpot comes out of the cabinet onto the counter before the penne is poured in)
    assert plan[3:] == [A("GRASP", pot), A("NAVIGATE_TO", CT), A("PLACE_ON_TOP", pot, CT), A("NAVIGATE_TO", box),
                        A("GRASP", box), A("NAVIGATE_TO", pot), A("POUR", box, pot), A("PLACE_ON_TOP", box, CT),
                        A("GRASP", pot), A("NAVIGATE_TO", STOVE), A("PLACE_ON_TOP", pot, STOVE),
                        A("TOGGLE_ON", STOVE), A("COOK", pot), A("TOGGLE_OFF", STOVE)]
    assert not any(a.args[-1:] == ("microwave.n.02_1",) for a in plan)


def test_diced_potatoes_are_cooked_in_the_pan_then_served_on_the_plate():
    # preparing_food_for_adult: (contains plate cooked__diced__potato); before, the china plate of potatoes went
    # into the oven. The room has no counter: the emptied bowl goes on the cabinet's top, not on the floor
    bowl, pan, plate = "bowl.n.01_1", "frying_pan.n.01_1", "plate.n.04_1"
    plan = _plan("preparing_food_for_adult", "(:goal (contains ?plate.n.04_1 ?cooked__diced__potato.n.01_1))")
    # (review rounds 5 and 6: the pan and then the plate come out of the cabinet onto its top before anything is
    # poured into them)
    assert plan[12:] == [A("POUR", bowl, pan), A("NAVIGATE_TO", CAB), A("PLACE_ON_TOP", bowl, CAB),
                         A("NAVIGATE_TO", pan), A("GRASP", pan), A("NAVIGATE_TO", STOVE), A("PLACE_ON_TOP", pan, STOVE),
                         A("TOGGLE_ON", STOVE), A("COOK", pan), A("TOGGLE_OFF", STOVE), A("NAVIGATE_TO", plate),
                         A("OPEN", CAB), A("GRASP", plate), A("NAVIGATE_TO", CAB), A("PLACE_ON_TOP", plate, CAB),
                         A("NAVIGATE_TO", pan), A("GRASP", pan), A("NAVIGATE_TO", plate), A("POUR", pan, plate)]
    assert plan[:7] == [A("NAVIGATE_TO", CAB), A("OPEN", CAB), A("NAVIGATE_TO", pan), A("GRASP", pan),
                        A("CLOSE", CAB), A("NAVIGATE_TO", CAB), A("PLACE_ON_TOP", pan, CAB)]
    assert A("PLACE_INSIDE", plate, OVEN) not in plan and A("RELEASE", bowl) not in plan


def test_the_empty_frying_pan_comes_off_the_grill_before_it_is_lit():
    # cook_zucchini (issue31u): the raw zucchini is diced on the board and tipped into the frying pan standing on
    # the grill, so the pan is no longer empty when the grill is lit and nothing lies on the grate beside it
    zucchini, pan, grill = "zucchini.n.02_1", "frying_pan.n.01_1", "grill.n.02_1"
    plan = _plan("cook_zucchini", "(:goal (real ?cooked__diced__zucchini.n.01_1))")
    assert A("PLACE_ON_TOP", zucchini, grill) not in plan and A("GRASP", pan) not in plan
    assert plan.index(A("POUR", "chopping_board.n.01_1", pan)) < plan.index(A("TOGGLE_ON", grill))

def test_the_salt_shaker_is_switched_on_over_the_pot_not_on_the_way_there():
    # cooking_a_feast: the stockpot stands in the cabinet; the shaker (a particle applier, on = shaking) is switched
    # on at the pot, after the walk, and off right after the pour. (Review round 5: the pot comes out of the
    # cabinet onto the counter first, then the salt goes in.)
    shaker, pot = "salt__shaker.n.01_1", "stockpot.n.01_1"
    plan = _plan("cooking_a_feast", "(:goal (real ?seawater.n.01_1))")
    assert plan[:12] == [A("NAVIGATE_TO", CAB), A("OPEN", CAB), A("NAVIGATE_TO", pot), A("GRASP", pot),
                         A("NAVIGATE_TO", CT), A("PLACE_ON_TOP", pot, CT), A("NAVIGATE_TO", shaker),
                         A("GRASP", shaker), A("NAVIGATE_TO", pot), A("TOGGLE_ON", shaker), A("POUR", shaker, pot),
                         A("TOGGLE_OFF", shaker)]
    # before: GRASP(shaker), TOGGLE_ON(shaker), NAVIGATE_TO(cabinet), OPEN(cabinet), ...: salt shaken on the way


def test_the_blender_lid_stays_open_until_the_last_pour():
    # make_chocolate_milk: before, close_when_done shut the blender right after opening it (OPEN, CLOSE) and the
    # cocoa, the sugar and the milk were poured into the closed blender
    blender, milk = "blender.n.01_1", "milk__carton.n.01_1"
    plan = _plan("make_chocolate_milk", "(:goal (real ?chocolate_milk.n.01_1))")
    assert plan[:2] == [A("NAVIGATE_TO", blender), A("OPEN", blender)]
    assert plan[-4:] == [A("POUR", milk, blender), A("CLOSE", blender), A("TOGGLE_ON", blender),
                         A("TOGGLE_OFF", blender)]
    assert [a for a in plan if a.args == (blender,) and a.name in ("OPEN", "CLOSE")] == [
        A("OPEN", blender), A("CLOSE", blender)]


def test_the_pepper_is_diced_in_an_empty_bowl_not_in_the_tupperware_of_eggs():
    # prepare_make_ahead_breakfast_bowls: the tupperware (the first bulk vessel listed) holds two eggs; the
    # cabinet's bowl is empty
    pepper, bowl, knife = "bell_pepper.n.02_1", "bowl.n.01_1", "carving_knife.n.01_1"
    plan = _plan("prepare_make_ahead_breakfast_bowls", "(:goal (real ?cooked__diced__bell_pepper.n.01_1))")
    assert A("PLACE_INSIDE", pepper, bowl) in plan and A("GRASP", "tupperware.n.01_1") not in plan
    # (review round 7: the pepper is heated in the bowl in the microwave, not on its bare floor; the bowl comes out
    # of the cabinet first. Round 11: the cooked pepper is diced on the chopping board, where the goal leaves it)
    ct, mw, board = "countertop.n.01_1", "microwave.n.02_1", "chopping_board.n.01_1"
    assert plan == [A("NAVIGATE_TO", CAB), A("OPEN", CAB), A("NAVIGATE_TO", bowl), A("GRASP", bowl),
                    A("NAVIGATE_TO", ct), A("PLACE_ON_TOP", bowl, ct), A("NAVIGATE_TO", FRIDGE), A("OPEN", FRIDGE),
                    A("NAVIGATE_TO", pepper), A("GRASP", pepper), A("NAVIGATE_TO", bowl),
                    A("PLACE_INSIDE", pepper, bowl),
                    A("GRASP", bowl), A("NAVIGATE_TO", mw), A("OPEN", mw), A("PLACE_INSIDE", bowl, mw), A("CLOSE", mw),
                    A("TOGGLE_ON", mw), A("COOK", pepper), A("TOGGLE_OFF", mw), A("OPEN", mw),
                    A("NAVIGATE_TO", pepper), A("GRASP", pepper), A("NAVIGATE_TO", board),
                    A("PLACE_ON_TOP", pepper, board), A("GRASP", knife), A("DICE", pepper), A("NAVIGATE_TO", ct),
                    A("PLACE_ON_TOP", knife, ct)]


def test_the_knife_goes_back_on_the_counter_after_the_chili_is_diced_not_onto_the_floor():
    # filling_pepper: once the chili is diced the robot stands at nothing that is left; the knife goes back on the
    # counter it came from (before: RELEASE, onto the floor)
    knife, ct, plate = "carving_knife.n.01_1", "countertop.n.01_1", "plate.n.04_1"
    plan = _plan("filling_pepper", "(:goal (covered ?half__bell_pepper.n.01_1 ?diced__chili.n.01_1))")
    # (issue31u: the pepper is taken out and cut into halves first, so the chili is diced at step 19, not 10)
    assert plan[18:] == [A("DICE", "chili.n.02_1"), A("NAVIGATE_TO", ct), A("PLACE_ON_TOP", knife, ct),
                        A("NAVIGATE_TO", plate), A("GRASP", plate), A("NAVIGATE_TO", "half__bell_pepper.n.01_1"),
                        A("APPLY", plate, "half__bell_pepper.n.01_1")]
    assert not any(a.name == "RELEASE" for a in plan)


def test_the_feta_is_diced_onto_the_plate_of_cheddar_not_into_a_wine_bottle_and_the_knife_is_set_down():
    # prepare_wine_and_cheese: the wine bottles (listed first) hold wine; the diced cheddar and feta share a plate
    # (the goal wants them on one plate); the knife goes on the counter after each cut, never onto the floor
    cheddar, feta, plate, knife, ct = ("cheddar.n.02_1", "feta.n.01_1", "plate.n.04_1", "carving_knife.n.01_1",
                                       "countertop.n.01_1")
    plan = _plan("prepare_wine_and_cheese", "(:goal (and (real ?diced__cheddar.n.01_1) (real ?diced__feta.n.01_1)))")
    # (review round 7: each cheese is diced on the chopping board, not cut on the plate; round 11: the goal asks for
    # the pieces only, so they stay on the board)
    board = "chopping_board.n.01_1"
    assert plan == [A("NAVIGATE_TO", cheddar), A("GRASP", cheddar), A("NAVIGATE_TO", board),
                    A("PLACE_ON_TOP", cheddar, board), A("GRASP", knife), A("DICE", cheddar), A("NAVIGATE_TO", ct),
                    A("PLACE_ON_TOP", knife, ct), A("NAVIGATE_TO", feta), A("GRASP", feta), A("NAVIGATE_TO", board),
                    A("PLACE_ON_TOP", feta, board), A("NAVIGATE_TO", knife), A("GRASP", knife),
                    A("NAVIGATE_TO", feta), A("DICE", feta), A("NAVIGATE_TO", ct), A("PLACE_ON_TOP", knife, ct)]
    assert A("GRASP", plate) not in plan
    assert not any(a.name == "RELEASE" for a in plan)
