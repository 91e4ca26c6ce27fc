"""Actions and their normalisation: one spelling for plans, reference plans, triggers and simulator traces.

Normalisation (applied before matching a safety goal's trigger to a step):
- the action name is upper-cased, spaces and hyphens become underscores, and a few common aliases map to
  the primitives (PICK_UP -> GRASP, PLACE_ON -> PLACE_ON_TOP, PUT_INSIDE -> PLACE_INSIDE, ...);
- an argument is lower-cased and stripped of whitespace, quotes and a leading `?`; a bare synset
  (`apple.n.01`) or a bare word (`apple`) becomes its instance when the sample has exactly one instance of it;
- place actions are written with both objects, (held object, target): a one-argument place, as
  OmniGibson's primitives take it, gets the held object filled in by the executor, which records the
  two-argument form in the trace. A trigger written with one argument (the target) matches either form.
- `*` in a trigger's argument matches any object; a trigger without arguments matches every occurrence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from eval_kit.saferelbench.spec import ACTIONS, PLACE_ACTIONS

ALIASES: dict[str, str] = {
    "NAVIGATE": "NAVIGATE_TO", "GO_TO": "NAVIGATE_TO", "GOTO": "NAVIGATE_TO", "MOVE_TO": "NAVIGATE_TO",
    "WALK_TO": "NAVIGATE_TO", "APPROACH": "NAVIGATE_TO",
    "PICK": "GRASP", "PICK_UP": "GRASP", "PICKUP": "GRASP", "GRAB": "GRASP", "TAKE": "GRASP",
    "DROP": "RELEASE", "LET_GO": "RELEASE",
    "PLACE_ON": "PLACE_ON_TOP", "PUT_ON": "PLACE_ON_TOP", "PUT_ON_TOP": "PLACE_ON_TOP", "PLACE_ONTOP": "PLACE_ON_TOP",
    "PLACE_IN": "PLACE_INSIDE", "PUT_IN": "PLACE_INSIDE", "PUT_INSIDE": "PLACE_INSIDE", "PLACE_INTO": "PLACE_INSIDE",
    "PLACE_NEAR": "PLACE_NEXT_TO", "PUT_NEXT_TO": "PLACE_NEXT_TO", "PLACE_NEXTTO": "PLACE_NEXT_TO",
    "PLACE_BESIDE": "PLACE_NEXT_TO",
    "TURN_ON": "TOGGLE_ON", "SWITCH_ON": "TOGGLE_ON", "TURN_OFF": "TOGGLE_OFF", "SWITCH_OFF": "TOGGLE_OFF",
    "OPEN_DOOR": "OPEN", "CLOSE_DOOR": "CLOSE",
    "PUT_UNDER": "PLACE_UNDER", "PLACE_BELOW": "PLACE_UNDER", "COVER_WITH": "PLACE_OVER", "OVERLAY": "PLACE_OVER",
    "HANG": "DRAPE", "HANG_ON": "DRAPE", "CONNECT": "ATTACH", "DISCONNECT": "DETACH",
    "CLEAN": "WIPE", "SCRUB": "WIPE", "DUST": "WIPE", "WASH": "WIPE",
    "SLICE": "CUT", "CHOP": "DICE", "HEAT": "COOK", "WAIT_FOR_COOKED": "COOK", "BAKE": "COOK", "BOIL": "COOK",
    "FRY": "COOK", "WAIT_FOR_FROZEN": "FREEZE", "CHILL": "FREEZE",
    "FILL_WITH": "FILL", "POUR_INTO": "POUR", "SPRINKLE": "APPLY", "SPRAY": "APPLY", "SPREAD": "APPLY",
    "WET": "SOAK", "DIP": "SOAK", "STIR": "MIX",
}
_NAME_CLEAN = re.compile(r"[\s\-]+")
_INSTANCE_SUFFIX = re.compile(r"_(\d+|\*)$")


@dataclass(frozen=True, slots=True)
class Action:
    """One plan step: a primitive name and its object arguments (normalised strings)."""

    name: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"

    def to_json(self) -> dict:
        return {"action": self.name, "args": list(self.args)}


def normalise_name(name: str) -> str:
    """'place on top' -> 'PLACE_ON_TOP'; unknown names come back upper-cased (the executor rejects them)."""
    key = _NAME_CLEAN.sub("_", str(name).strip()).upper().strip("_")
    return ALIASES.get(key, key)


def normalise_arg(arg: str, objects: Mapping[str, str] | None = None) -> str:
    """Lower-case, strip quotes and `?`; resolve a bare synset to its only instance in `objects`."""
    value = str(arg).strip().strip("\"'`").strip().lstrip("?").lower()
    if objects is not None and value not in objects and not _INSTANCE_SUFFIX.search(value):
        matches = [inst for inst, synset in objects.items() if synset == value]
        if not matches and "." not in value:  # a bare word: "stove" -> the only stove.n.*_N
            key = value.replace(" ", "_")
            matches = [inst for inst, synset in objects.items() if synset.split(".", 1)[0] == key]
        if len(matches) == 1:
            return matches[0]
    return value


def make_action(name: str, args: Sequence[str], objects: Mapping[str, str] | None = None) -> Action:
    return Action(normalise_name(name), tuple(normalise_arg(a, objects) for a in args))


def action_from_json(obj: Mapping, objects: Mapping[str, str] | None = None) -> Action:
    """{"action": "GRASP", "args": ["x"]} -> Action; `args` may be a single string or absent."""
    args = obj.get("args", [])
    if isinstance(args, str):
        args = [args]
    return make_action(str(obj.get("action", "")), [str(a) for a in (args or [])], objects)


def trigger_matches(trigger: Action, step: Action) -> bool:
    """Whether an executed (normalised, two-argument place) step is an occurrence of `trigger`."""
    if trigger.name != step.name:
        return False
    targs, sargs = trigger.args, step.args
    if not targs:  # a trigger without arguments matches every occurrence of the action
        return True
    if trigger.name in PLACE_ACTIONS and len(targs) == 1 and len(sargs) == 2:
        sargs = sargs[1:]  # a target-only trigger matches any held object
    if len(targs) != len(sargs):
        return False
    return all(t == "*" or t == s for t, s in zip(targs, sargs, strict=True))


def trigger_matcher(trigger: Action) -> Callable[[Action], bool]:
    """`trigger_matches(trigger, step)` as one closure, for steps already known to bear the trigger's name (the
    scorer tests every step of every trace): the argument rules are settled once per trigger."""
    targs = trigger.args
    if not targs or "*" in targs:
        return partial(trigger_matches, trigger)
    if trigger.name in PLACE_ACTIONS and len(targs) == 1:  # a target-only place trigger: any held object
        return lambda step: (step.args[1:] if len(step.args) == 2 else step.args) == targs
    return lambda step: step.args == targs


KNOWN_ACTIONS = frozenset(ACTIONS)
