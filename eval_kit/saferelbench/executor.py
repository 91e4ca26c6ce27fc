"""A symbolic executor for SafeRelBench plans: OmniGibson's semantic primitives over a set of ground literals.

The state is a frozenset of BDDL literals (closed world). The agent is an object of synset `agent.n.01`;
what it holds is `(grasped agent x)`, where it stands is `(nextto agent x)` (set by NAVIGATE_TO).
An object is *reachable* when the agent holds it, or stands next to (NAVIGATE_TO) an object y and the
object is y, is next to y, is (transitively) on or in y or in what is next to y, is y's direct support or
container, or is (transitively) on or in that support / container unless it is the floor (standing at a
counter reaches what is on the counter; standing at a chair does not reach everything on the floor).

Primitives, preconditions (all must hold, else the step fails) and effects:

| primitive | preconditions | effects |
|---|---|---|
| NAVIGATE_TO(x) | x is a known object, not the agent, not held | the agent's `nextto` becomes x only |
| GRASP(x) | x graspable, hand empty, reachable, not in a closed container | `(grasped agent x)`; x unplaced (*) |
| RELEASE([x]) | holding (x) | not held; x lands `ontop` the floor when the scene has one |
| PLACE_ON_TOP([x,] t) | holding x, t known, t != x, t reachable | not held; `(ontop x t)` |
| PLACE_INSIDE([x,] t) | as PLACE_ON_TOP, t a container, t open if openable | not held; `(inside x t)` |
| PLACE_NEXT_TO([x,] t) | as PLACE_ON_TOP | not held; `(nextto x t)`; x joins t's support / container |
| OPEN(x) | x openable, reachable, not open | `(open x)` |
| CLOSE(x) | x openable, reachable, open | not `(open x)` |
| TOGGLE_ON(x) | x toggleable, reachable, not on | `(toggled_on x)` |
| TOGGLE_OFF(x) | x toggleable, reachable, on | not `(toggled_on x)` |

(*) `ontop` / `inside` / `nextto` / `under` / `touching` with x first, and `nextto` with x second. Objects
resting on x stay on it: the executor does not simulate falls; the safety goals judge them.

Unknown actions, unknown objects and wrong argument counts fail like a precondition. A failed step is
recorded with its reason and leaves the state unchanged; execution then continues (`on_failure="continue"`,
the default: the agent skips an impossible action, as a simulator would) or stops (`"stop"`).
Only executed (`ok`) steps count as occurrences of a safety goal's trigger.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from eval_kit.saferelbench.actions import KNOWN_ACTIONS, Action
from eval_kit.saferelbench.literals import Literal, State
from eval_kit.saferelbench.spec import AGENT_SYNSET, FLOOR_SYNSET, PLACE_ACTIONS

_OWN_RELATIONS = frozenset({"ontop", "inside", "nextto", "under", "touching", "overlaid", "draped", "attached"})
OK, FAILED = "ok", "failed"


@dataclass(frozen=True, slots=True)
class Step:
    """One executed or attempted action with the states around it (before == after when it failed)."""

    action: Action
    status: str
    before: State
    after: State
    error: str | None = None


@dataclass
class Trace:
    """What a plan did: its steps, the initial and final states, and why it could not run (parse_error)."""

    initial: State
    steps: list[Step] = field(default_factory=list)
    parse_error: str | None = None

    @property
    def final(self) -> State:
        return self.steps[-1].after if self.steps else self.initial


@dataclass(frozen=True)
class World:
    """The static facts of a sample: objects (instance -> synset) and their abilities."""

    objects: Mapping[str, str]
    abilities: Mapping[str, frozenset[str]]
    agent: str
    floor: str | None

    @classmethod
    def build(cls, objects: Mapping[str, str], abilities: Mapping[str, Iterable[str]]) -> World:
        agents = [i for i, s in objects.items() if s == AGENT_SYNSET]
        if len(agents) != 1:
            raise ValueError(f"a sample needs exactly one {AGENT_SYNSET} instance, found {len(agents)}")
        floors = sorted(i for i, s in objects.items() if s == FLOOR_SYNSET)
        return cls(dict(objects), {k: frozenset(v) for k, v in abilities.items()}, agents[0],
                   floors[0] if floors else None)

    def has(self, obj: str, ability: str) -> bool:
        return ability in self.abilities.get(obj, ())


class PreconditionError(Exception):
    """A failed precondition; its message is recorded in the trace."""


def _held(state: State, agent: str) -> str | None:
    for lit in state:
        if lit[0] == "grasped" and lit[1] == agent:
            return lit[2]
    return None


def _reachable(state: State, world: World, obj: str) -> bool:
    """Held, or within reach of where the agent stands (see the module docstring)."""
    agent = world.agent
    if ("grasped", agent, obj) in state:
        return True
    anchors: set[str] = set()
    for lit in state:
        if lit[0] == "nextto" and lit[1] == agent:
            anchors.add(lit[2])
    if not anchors:
        return False
    anchors |= {lit[2] if lit[1] in anchors else lit[1] for lit in state
                if lit[0] == "nextto" and (lit[1] in anchors or lit[2] in anchors) and agent not in lit}
    supports = {lit[2] for lit in state if lit[0] in ("ontop", "inside") and lit[1] in anchors}
    if obj in supports:  # the surface or container the agent stands at
        return True
    anchors |= {s for s in supports if world.objects.get(s) != FLOOR_SYNSET}
    current, seen = obj, set()
    while current is not None and current not in seen:  # walk up what supports / contains obj
        if current in anchors:
            return True
        seen.add(current)
        current = next((lit[2] for lit in state if lit[0] in ("ontop", "inside") and lit[1] == current), None)
    return False


def _enclosed(state: State, world: World, obj: str) -> str | None:
    """The first closed openable container around obj (transitively), or None."""
    frontier, seen = [obj], set()
    while frontier:
        current = frontier.pop()
        seen.add(current)
        for lit in state:
            if lit[0] == "inside" and lit[1] == current:
                container = lit[2]
                if world.has(container, "openable") and ("open", container) not in state:
                    return container
                if container not in seen:
                    frontier.append(container)
    return None


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise PreconditionError(message)


def _check_object(world: World, obj: str) -> None:
    _need(obj in world.objects, f"unknown object {obj!r}")


def _place(state: State, world: World, action: Action) -> tuple[State, Action]:
    agent = world.agent
    held = _held(state, agent)
    _need(len(action.args) in (1, 2), f"{action.name} takes (target) or (object, target)")
    _need(held is not None, f"{action.name} needs an object in hand")
    if len(action.args) == 2:
        _check_object(world, action.args[0])
        _need(action.args[0] == held, f"{action.args[0]} is not in hand (holding {held})")
    target = action.args[-1]
    _check_object(world, target)
    _need(target != held and target != agent, f"cannot place {held} relative to {target}")
    _need(_reachable(state, world, target), f"{target} is not reachable (NAVIGATE_TO it first)")
    removed = {("grasped", agent, held)}
    added: set[Literal] = set()
    if action.name == "PLACE_ON_TOP":
        added.add(("ontop", held, target))
    elif action.name == "PLACE_INSIDE":
        _need(world.has(target, "container"), f"{target} is not a container")
        _need(not world.has(target, "openable") or ("open", target) in state, f"{target} is closed (OPEN it first)")
        added.add(("inside", held, target))
    else:  # PLACE_NEXT_TO: beside the target, on the same support / in the same container
        added.add(("nextto", held, target))
        for lit in state:
            if lit[0] in ("ontop", "inside") and lit[1] == target:
                added.add((lit[0], held, lit[2]))
    new_state = (state - removed) | added
    return frozenset(new_state), Action(action.name, (held, target))


def apply(state: State, world: World, action: Action) -> tuple[State, Action]:
    """Apply one action; returns (new state, the action as recorded). Raises PreconditionError."""
    name, args = action.name, action.args
    agent = world.agent
    _need(name in KNOWN_ACTIONS, f"unknown action {name!r}")
    if name in PLACE_ACTIONS:
        return _place(state, world, action)
    if name == "RELEASE":
        held = _held(state, agent)
        _need(held is not None, "RELEASE needs an object in hand")
        _need(len(args) <= 1, "RELEASE takes at most one argument")
        _need(not args or args[0] == held, f"{args[0] if args else ''} is not in hand (holding {held})")
        new = set(state)
        new.discard(("grasped", agent, held))
        if world.floor is not None:
            new.add(("ontop", held, world.floor))
        return frozenset(new), Action(name, (held,))
    _need(len(args) == 1, f"{name} takes one object argument, got {len(args)}")
    obj = args[0]
    _check_object(world, obj)
    _need(obj != agent, f"{name} cannot act on the agent")
    if name == "NAVIGATE_TO":
        _need(("grasped", agent, obj) not in state, f"{obj} is in hand")
        new_state = frozenset(lit for lit in state if not (lit[0] == "nextto" and lit[1] == agent))
        return new_state | {("nextto", agent, obj)}, action
    _need(_reachable(state, world, obj), f"{obj} is not reachable (NAVIGATE_TO it first)")
    if name == "GRASP":
        _need(world.has(obj, "graspable"), f"{obj} cannot be grasped")
        held = _held(state, agent)
        _need(held is None, f"hand is full (holding {held})")
        closed = _enclosed(state, world, obj)
        _need(closed is None, f"{obj} is inside closed {closed} (OPEN it first)")
        kept = frozenset(
            lit for lit in state
            if not (lit[0] in _OWN_RELATIONS and len(lit) == 3
                    and (lit[1] == obj or (lit[0] == "nextto" and lit[2] == obj and lit[1] != agent)))
        )
        return kept | {("grasped", agent, obj)}, action
    if name in ("OPEN", "CLOSE"):
        _need(world.has(obj, "openable"), f"{obj} cannot be opened or closed")
        is_open = ("open", obj) in state
        if name == "OPEN":
            _need(not is_open, f"{obj} is already open")
            return state | {("open", obj)}, action
        _need(is_open, f"{obj} is already closed")
        return state - {("open", obj)}, action
    # TOGGLE_ON / TOGGLE_OFF
    _need(world.has(obj, "toggleable"), f"{obj} cannot be toggled")
    is_on = ("toggled_on", obj) in state
    if name == "TOGGLE_ON":
        _need(not is_on, f"{obj} is already on")
        return state | {("toggled_on", obj)}, action
    _need(is_on, f"{obj} is already off")
    return state - {("toggled_on", obj)}, action


def execute(initial: State, world: World, plan: Sequence[Action], *, on_failure: str = "continue") -> Trace:
    """Run a plan from `initial`; every step is recorded (see the module docstring for the rules)."""
    if on_failure not in ("continue", "stop"):
        raise ValueError("on_failure must be 'continue' or 'stop'")
    trace = Trace(initial=initial)
    state = initial
    for action in plan:
        try:
            new_state, recorded = apply(state, world, action)
        except PreconditionError as exc:
            trace.steps.append(Step(action, FAILED, state, state, str(exc)))
            if on_failure == "stop":
                break
            continue
        trace.steps.append(Step(recorded, OK, state, new_state))
        state = new_state
    return trace
