"""BEHAVIOR-1K activities as they stand: bddl's problem files -> objects, initial state, goal, ready to execute.

Every one of the 1,016 activities bddl 3.6.0 ships is read with bddl's own parser
(`bddl.parsing.parse_problem`) and kept whole:
- rooms: `(inroom floor.n.01_1 kitchen)` stays in the initial state as written, with the room name as its
  second argument (rooms are places, not objects); the executor keeps these static facts in
  `World.rooms`, apart from the state it changes;
- negated initial literals `(not (cooked x))` are kept as written; the state is closed-world, so they
  only have to agree with the positive literals (a contradiction is a load failure);
- synsets with hyphens (`low-fat_milk.n.01`) and `_*` instance names (`sink.n.01_*`, "any sink") are
  ordinary names; an instance listed twice (passing_out_drinks) is one instance;
- abilities come from bddl's synset properties (`eval_kit.saferelbench.knowledge.activity_abilities`):
  a scene object the activity does not fix with `inroom` can be moved, and what the activity puts things
  `inside` is a container.
`load_activity(name)` returns the sample fields an activity determines (objects, initial_state, task_goal);
`reachability(name)` adds whether the executor can reach its goal, with a witness plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from eval_kit.saferelbench import knowledge
from eval_kit.saferelbench.literals import LiteralError


def to_text(tokens: Any) -> str:
    """bddl tokens back to BDDL text: ['and', ['ontop', 'a', 'b']] -> '(and (ontop a b))'."""
    if isinstance(tokens, str):
        return tokens
    return "(" + " ".join(to_text(t) for t in tokens) + ")"


def _inside_targets(tree: Any) -> set[str]:
    """Instances the goal puts something inside: (inside ?x ?y) -> y (variables included, as written)."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            if len(node) == 3 and node[0] == "inside" and isinstance(node[2], str):
                found.add(node[2].lstrip("?"))
            stack.extend(node)
    return found


@dataclass
class ActivityFields:
    """What an activity determines: its objects (with abilities), initial literals and goal, as sample fields."""

    name: str
    objects: list[dict[str, Any]]
    initial_state: list[str]
    task_goal: str
    rooms: dict[str, str] = field(default_factory=dict)


@cache
def parse_activity(name: str) -> tuple[dict[str, list[str]], list, list]:
    """bddl's parse of an activity's problem0.bddl: (object map, initial literals, goal conjuncts).

    bddl prints remarks on stdout for a few files ("\\ is not recognized in problem"); they are captured so
    that `--json` output stays clean."""
    import contextlib
    import io

    from bddl import parsing

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            _, object_map, init, goal = parsing.parse_problem(name, 0, "omnigibson")
    except Exception as exc:  # bddl raises bare Exception on malformed files
        raise LiteralError(f"bddl cannot parse {name}: {exc}") from None
    return object_map, init, goal


@cache
def load_activity(name: str) -> ActivityFields:
    """Read one activity with bddl's parser; raises LiteralError when bddl cannot parse it."""
    object_map, init, goal = parse_activity(name)
    objects: dict[str, str] = {}
    for synset, instances in object_map.items():
        for inst in instances:
            objects.setdefault(inst, synset)
    rooms = {lit[1]: lit[2] for lit in init if lit[0] == "inroom"}
    holders = {lit[2] for lit in init if lit[0] == "inside"} | _inside_targets(goal)
    out = [{"instance": inst, "synset": synset,
            "abilities": sorted(knowledge.activity_abilities(synset, in_room=inst in rooms,
                                                             holds_things=inst in holders))}
           for inst, synset in objects.items()]
    initial = [to_text(lit) for lit in init]
    for synset in _raw_dice(objects, init):  # the raw dice a cooked dice is made from (issue 31, round 4)
        out.append({"instance": f"{synset}_1", "synset": synset,
                    "abilities": sorted(knowledge.activity_abilities(synset, in_room=False, holds_things=False))})
    return ActivityFields(name, out, initial, "(:goal " + to_text(["and", *goal]) + ")", rooms)


def _raw_dice(objects: dict[str, str], init: list) -> list[str]:
    """The raw dice synsets (diced__zucchini) an activity needs but does not list: where it makes a cooked dice
    (a `future` cooked__diced__zucchini) of a whole it has (a zucchini), a cook dices the raw whole on the board
    and cooks the dice in the pan (issue 31, review round 4: the zucchini was cooked whole and then diced inside
    the hot pan). bddl's own rule makes cooked__diced__x from diced__x (substance_cooking); the activity lists
    no diced__x instance, so none could be cut. One instance of it is added, absent at the start (a substance no
    literal names: the executor makes it when the whole is diced)."""
    future = {lit[1] for lit in init if lit[0] == "future"}
    synsets = set(objects.values())
    out = []
    for inst, synset in objects.items():
        if inst not in future or not synset.startswith("cooked__diced__"):
            continue
        raw = synset.replace("cooked__", "", 1)
        if raw in synsets or raw in out or not knowledge.is_substance(raw):
            continue
        if any(knowledge.derivative(whole, "dice") == raw for whole in synsets):
            out.append(raw)
    return out


@dataclass
class ActivityStatus:
    """One line of `hazardkit saferel activities`: does it load, is its goal reachable, and how."""

    name: str
    loads: bool
    reachable: bool
    error: str | None = None
    witness: list[str] | None = None

    def to_json(self, with_witness: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"activity": self.name, "loads": self.loads, "reachable": self.reachable,
                               "error": self.error, "witness_steps": len(self.witness) if self.witness else None}
        if with_witness:
            out["witness"] = self.witness
        return out


def compiled_activity(name: str):
    """(world, initial state, compiled goal, goal tree, object map) of an activity; raises LiteralError."""
    from eval_kit.saferelbench.executor import World
    from eval_kit.saferelbench.goals import compile_condition
    from eval_kit.saferelbench.literals import split_initial

    fields = load_activity(name)
    objects = {o["instance"]: o["synset"] for o in fields.objects}
    initial, _, rooms = split_initial(fields.initial_state)
    world = World.build(objects, {o["instance"]: o["abilities"] for o in fields.objects}, rooms)
    goal = compile_condition(fields.task_goal, objects)
    object_map, _, tree = parse_activity(name)
    return world, initial, goal, tree, object_map


def activity_status(name: str) -> ActivityStatus:
    """Load one activity and look for a witness plan to its goal."""
    from eval_kit.saferelbench.planner import find_plan

    try:
        world, initial, goal, tree, object_map = compiled_activity(name)
    except (LiteralError, ValueError) as exc:
        return ActivityStatus(name, False, False, str(exc))
    if goal.holds(initial):
        return ActivityStatus(name, True, True, None, [])
    result = find_plan(world, initial, goal, tree, object_map)
    if result.plan is None:
        return ActivityStatus(name, True, False, result.reason)
    return ActivityStatus(name, True, True, None, [str(a) for a in result.plan])


def all_activities() -> list[str]:
    from bddl.activity import get_all_activities

    return sorted(get_all_activities())
