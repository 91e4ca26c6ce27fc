"""BDDL goal compilation: bddl's parser, our literal-set backend, checked against bddl's own evaluator."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from eval_kit.saferelbench.goals import bddl_backend_evaluate, compile_condition
from eval_kit.saferelbench.literals import LiteralError, parse_literal, parse_state

DESK = {
    "pen.n.01_1": "pen.n.01", "pen.n.01_2": "pen.n.01", "pencil_box.n.01_1": "pencil_box.n.01",
    "folder.n.02_1": "folder.n.02", "folder.n.02_2": "folder.n.02", "bookcase.n.01_1": "bookcase.n.01",
    "agent.n.01_1": "agent.n.01",
}


def test_real_activity_goal_parses_and_evaluates():
    from bddl.activity import Conditions

    conds = Conditions("clean_up_your_desk", 0, "omnigibson")  # the real activity file shipped with bddl
    objects = {inst: cat for cat, insts in conds.parsed_objects.items() for inst in insts}
    import bddl

    text = (Path(bddl.__path__[0]) / "activity_definitions" / "clean_up_your_desk" / "problem0.bddl").read_text()
    goal = text[text.index("(:goal"):].rstrip().rstrip(")")
    compiled = compile_condition(goal, objects)
    assert not compiled.holds(frozenset())
    assert len(compiled.conjuncts) == len(conds.parsed_goal_conditions)


@pytest.mark.parametrize("goal", [
    "(:goal (and (forall (?pen.n.01 - pen.n.01) (inside ?pen.n.01 ?pencil_box.n.01_1))))",
    "(exists (?folder.n.02 - folder.n.02) (inside ?folder.n.02 ?bookcase.n.01_1))",
    "(forn (1) (?pen.n.01 - pen.n.01) (inside ?pen.n.01 ?pencil_box.n.01_1))",
    "(forpairs (?pen.n.01 - pen.n.01) (?folder.n.02 - folder.n.02) (ontop ?pen.n.01 ?folder.n.02))",
    "(fornpairs (1) (?pen.n.01 - pen.n.01) (?folder.n.02 - folder.n.02) (ontop ?pen.n.01 ?folder.n.02))",
    "(imply (open pencil_box.n.01_1) (not (inside pen.n.01_1 pencil_box.n.01_1)))",
    "(or (nextto pen.n.01_1 folder.n.02_1) (and (open pencil_box.n.01_1) (not (ontop pen.n.01_2 folder.n.02_2))))",
])
def test_matches_bddl_condition_evaluation_on_random_states(goal):
    universe = [
        ("inside", p, "pencil_box.n.01_1") for p in ("pen.n.01_1", "pen.n.01_2")
    ] + [("inside", f, "bookcase.n.01_1") for f in ("folder.n.02_1", "folder.n.02_2")] + [
        ("ontop", p, f) for p, f in itertools.product(("pen.n.01_1", "pen.n.01_2"), ("folder.n.02_1", "folder.n.02_2"))
    ] + [("open", "pencil_box.n.01_1"), ("nextto", "folder.n.02_1", "pen.n.01_1")]
    rng = random.Random(7)
    compiled = compile_condition(goal, DESK)
    outcomes = set()
    for _ in range(60):
        state = frozenset(lit for lit in universe if rng.random() < 0.45)
        ours = compiled.holds(state)
        assert ours == bddl_backend_evaluate(goal, DESK, state), state
        outcomes.add(ours)
    assert outcomes == {True, False}  # the random states exercised both answers


def test_nextto_is_symmetric_and_ontop_does_not_imply_nextto():
    objects = {"a.n.01_1": "a.n.01", "b.n.01_1": "b.n.01"}
    nextto = compile_condition("(nextto a.n.01_1 b.n.01_1)", objects)
    assert nextto.holds(frozenset({("nextto", "b.n.01_1", "a.n.01_1")}))
    assert not nextto.holds(frozenset({("ontop", "a.n.01_1", "b.n.01_1")}))  # unlike bddl's trivial backend


def test_hot_and_filled_read_their_own_literals():
    objects = {"pot.n.01_1": "pot.n.01", "water.n.06_1": "water.n.06"}
    hot = compile_condition("(hot pot.n.01_1)", objects)
    filled = compile_condition("(filled pot.n.01_1 water.n.06_1)", objects)
    assert not hot.holds(frozenset({("on_fire", "pot.n.01_1")}))
    assert hot.holds(frozenset({("hot", "pot.n.01_1")}))
    assert not filled.holds(frozenset({("ontop", "pot.n.01_1", "water.n.06_1")}))
    assert filled.holds(frozenset({("filled", "pot.n.01_1", "water.n.06_1")}))


@pytest.mark.parametrize("bad, message", [
    ("(ontop pen.n.01_1)", "takes 2"),
    ("(levitating pen.n.01_1)", "unknown predicate"),
    ("(ontop pen.n.01_1 ghost.n.01_1)", "unknown object"),
    ("(and (ontop pen.n.01_1 folder.n.02_1)", "parenthes"),
    ("(forall (?cup.n.01 - cup.n.01) (ontop ?cup.n.01 folder.n.02_1))", "no instance"),
])
def test_bad_conditions_raise(bad, message):
    with pytest.raises(LiteralError, match=message):
        compile_condition(bad, DESK)


def test_literals_parse_with_domain_arity():
    assert parse_literal("(OnTop a.n.01_1 b.n.01_1)") == ("ontop", "a.n.01_1", "b.n.01_1")
    assert parse_state(["(open x.n.01_1)"]) == frozenset({("open", "x.n.01_1")})
    with pytest.raises(LiteralError):
        parse_literal("(open ?x)")
    with pytest.raises(LiteralError):
        parse_literal("(open a.n.01_1 b.n.01_1)")
