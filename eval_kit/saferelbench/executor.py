"""A symbolic executor for SafeRelBench plans: BEHAVIOR-1K's semantic primitives over a set of ground literals.

The state is a frozenset of BDDL literals (closed world). The agent is an object of synset `agent.n.01`;
what it holds is `(grasped agent x)`, where it stands is `(nextto agent x)` (set by NAVIGATE_TO).
An object is *reachable* when the agent holds it, or stands next to (NAVIGATE_TO) an object y and the
object is y, is next to y, is (transitively) on or in y or in what is next to y, is y's direct support or
container, or is (transitively) on or in that support / container unless it is the floor (standing at a
counter reaches what is on the counter; standing at a chair does not reach everything on the floor).
(****) When y is the object the agent has since grasped there (no walk in between), y's supports and containers
are where y was lifted from and what that rests on or in, transitively, up to the floor: the robot that took
the butter out of the tupperware in the fridge still stands at the fridge and can shut its door with the
butter in hand (BEHAVIOR's one-hand primitives).

Primitives, preconditions (all must hold, else the step fails) and effects. "held-target" actions act on the
object in hand: written (held, target) or (target), the executor records both.

- No action names an object that does not exist yet: a `(future x)` instance (the half pepper before the pepper
  is cut, the milkshake before the blender runs) fails every step, NAVIGATE_TO included, until the transition
  that makes it has run (issue 31, review round 4: a plan walked to and APPLYed onto a half pepper never cut).
- NAVIGATE_TO(x): x known, not the agent, not held -> the agent's `nextto` becomes x only; a held object
  comes along (**).
- Every action on an object x (or on a held-target action's target) except NAVIGATE_TO, RELEASE, COOK and
  FREEZE fails while x is inside a closed openable container, transitively (no grasp, toggle, open, fill,
  pour, cut or wipe through a closed cabinet door; COOK and FREEZE wait for a source that acts through it).
- GRASP(x): x graspable, hand empty, reachable -> `(grasped agent x)`; x lifted (*).
- RELEASE([x]): holding (x) -> x lands `ontop` the floor where the agent stands (**).
- PLACE_ON_TOP(t): holding h, t known, t != h, t reachable -> `(ontop h t)`, `(touching h t)` (*).
- PLACE_INSIDE(t): as PLACE_ON_TOP, t a container, t open if openable -> `(inside h t)`.
- PLACE_NEXT_TO(t): as PLACE_ON_TOP -> `(nextto h t)`; h joins t's support / container, or the floor of t's room.
- PLACE_UNDER / PLACE_OVER / DRAPE(t): as PLACE_ON_TOP; OVER and DRAPE need h drapeable -> `(under h t)`
  (on the floor of t's room) / `(overlaid h t)` / `(draped h t)`.
- ATTACH(t): as PLACE_ON_TOP; h or t attachable -> `(attached h t)`. DETACH(x): x attached -> not any more.
- OPEN / CLOSE(x): x openable, reachable, closed / open -> `(open x)` added / removed.
- TOGGLE_ON / TOGGLE_OFF(x): x toggleable, reachable, off / on -> `(toggled_on x)`; a machine runs its rules (***).
- WIPE(x): holding a cleaning_tool, x reachable -> removes each `(covered x s)` the tool removes under bddl's
  particleRemover conditions (`knowledge.remover_condition`: e.g. mud needs the rag soaked in water).
- CUT(x) / DICE(x): holding a slicer, x reachable and sliceable / diceable -> x replaced by its bddl
  derivative (half__x, diced__x; cooked__diced__x when x is cooked): one cut makes the pieces of x only,
  as many as bddl's slicing rule outputs (2 halves), not every future half of that synset.
- COOK(x): x reachable, on or in an active heat source (directly or through its container). Active means
  bddl's heatSource annotation holds: `requires_toggled_on` (an unannotated toggleable source must be on),
  `requires_closed` (oven, microwave, toaster oven: door shut), `requires_inside` (x or its container
  inside it, not on it) -> heat_cook recipes run first on x's contents (their input states: dough not yet
  cooked, pair states), then cookable: `cooked`, heatable: `hot`, for x and what it holds; substances cook
  by bddl's substance rules (water -> cooked__water; a `waterCook` substance such as brown rice only by its
  substance_watercooking rule, i.e. with boiling water in the pot), then melting rules.
- FREEZE(x): x (or its container) in a cold source, with its coldSource annotation holding (closed,
  inside, on where it says so) -> `(frozen x)`, not `hot`.
- FILL(t): holding a fillable h; t reachable and a source of s (insource, bddl's particleSource /
  particleApplier with its conditions, e.g. a sink on; or t filled with / contains s where t is a
  container of s: a fillable non-scene object, or a fillable scene object holding a liquid; rice lying in an
  oven, a fridge or a sink is not) -> `(filled h s)`, `(contains h s)`.
- POUR(t): holding h that is filled with / contains / emits s, or is covered with diced food (the chopping board
  the zucchini was diced on: tipped into the pan, all of it, h no longer covered); t reachable -> t `contains` s
  (and `filled` if fillable) or is `covered` with s; h keeps the rest (a pour takes some); into a particle
  sink (a drain) h empties.
- APPLY(t): holding h with s (filled / contains / a particleApplier, on if it must be) -> `(covered t s)`.
- SOAK(t): holding h; t a source of s as for FILL -> `(saturated h s)`.
- MIX(c): holding a mixing_tool; c reachable -> mixing rules run on c's contents.
- FOLD / UNFOLD(x): x foldable (cloth), reachable -> `(folded x)` / `(unfolded x)`.

(*) Lifting x removes its `ontop` / `inside` / `under` / `touching` / `overlaid` / `draped` / `attached`
literals but keeps its `nextto` literals: it is in the hand at the same place. What it was on is
remembered (hidden `~` literals, never shown in traces): placing it back on or in the same object restores
every relation it had, including `nextto` (picking an object up and putting it back does not move it).
(**) While held, an object travels with the agent: NAVIGATE_TO(y) replaces its `nextto` literals by
`(nextto h y)`; RELEASE drops it on the floor at that place, keeping them (dropping a mug on the floor
next to the stove leaves it next to the stove). Objects resting on x stay on it.
(***) Transition rules come from bddl's transition map: a toggled-on machine (coffee maker, blender)
turns its contents into the rule's outputs; a washer removes the `covered` substances of what is inside
it (when it contains a cleaning substance the washer rules require). A rule fires exactly as bddl writes
it: it needs `count` of each input object in its `input_states` and all its pair states, consumes those
(every literal of a consumed object goes; a consumed substance leaves the container), and makes `count`
of each output (the activity's `future` instances, which become `real`, with the rule's output states);
it fires again while inputs and free outputs remain.

Unknown actions, unknown objects and wrong argument counts fail like a precondition. A failed step is
recorded with its reason and leaves the state unchanged; execution then continues (`on_failure="continue"`,
the default) or stops (`"stop"`). `max_steps` caps the plan: later steps are not executed and counted
in `Trace.truncated`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from eval_kit.saferelbench import knowledge
from eval_kit.saferelbench.actions import Action
from eval_kit.saferelbench.literals import Literal, State
from eval_kit.saferelbench.spec import AGENT_SYNSET, FLOOR_SYNSET, HELD_TARGET_ACTIONS

_LIFTED = frozenset({"ontop", "inside", "under", "touching", "overlaid", "draped", "attached"})
_OWN_RELATIONS = _LIFTED | {"nextto"}
HIDDEN_PREFIX = "~"  # executor bookkeeping literals ("~ontop", x, t): where a held object was taken from
_HIDE = {r: HIDDEN_PREFIX + r for r in _OWN_RELATIONS}  # "ontop" -> "~ontop": no string made per step
_UNHIDE = {hidden: r for r, hidden in _HIDE.items()}
_REMEMBERED_SUPPORT = frozenset({_HIDE["ontop"], _HIDE["inside"]})  # where a held object was lifted from
OK, FAILED = "ok", "failed"
# Actions that act on an object without touching it: waiting for the closed oven to cook, the freezer to freeze
_THROUGH_DOORS = frozenset({"COOK", "FREEZE"})
_HOLDER_ABILITIES = frozenset({"container", "openable", "fillable"})


@dataclass(slots=True)
class Step:
    """One executed or attempted action with the states around it (before == after when it failed)."""

    action: Action
    status: str
    before: State
    after: State
    error: str | None = None


@dataclass(slots=True)
class Trace:
    """What a plan did: its steps, the initial and final states, and why it could not run (parse_error)."""

    initial: State
    steps: list[Step] = field(default_factory=list)
    parse_error: str | None = None
    truncated: int = 0  # steps beyond the step cap, not executed

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
    rooms: Mapping[str, str] = field(default_factory=dict)  # instance -> room, from (inroom obj room): static

    @classmethod
    def build(cls, objects: Mapping[str, str], abilities: Mapping[str, Iterable[str]],
              rooms: Mapping[str, str] | None = None) -> World:
        agents = [i for i, s in objects.items() if s == AGENT_SYNSET]
        if len(agents) != 1:
            raise ValueError(f"a sample needs exactly one {AGENT_SYNSET} instance, found {len(agents)}")
        floors = sorted(i for i, s in objects.items() if s == FLOOR_SYNSET)
        return cls(dict(objects), {k: frozenset(v) for k, v in abilities.items()}, agents[0],
                   floors[0] if floors else None, dict(rooms or {}))

    @cached_property
    def holders(self) -> tuple[str, ...]:
        """Objects that can have things inside them (container, openable or fillable), sorted."""
        return tuple(sorted(i for i, a in self.abilities.items() if a & _HOLDER_ABILITIES))

    def has(self, obj: str, ability: str) -> bool:
        return ability in self.abilities.get(obj, ())

    @cached_property
    def able(self) -> dict[str, frozenset[str]]:
        """ability -> the instances that have it: `obj in world.able["graspable"]` is one probe, no call."""
        out: dict[str, set[str]] = {}
        for inst, abilities in self.abilities.items():
            for ability in abilities:
                out.setdefault(ability, set()).add(inst)
        return {k: frozenset(v) for k, v in out.items()}

    @cached_property
    def grasp_literals(self) -> frozenset[Literal]:
        """Every `(grasped agent x)` over the world's objects: what is in hand is `state & grasp_literals`,
        one C-level probe per literal of the state instead of a Python loop."""
        return frozenset(("grasped", self.agent, o) for o in self.objects)

    @cached_property
    def agent_nextto_literals(self) -> frozenset[Literal]:
        """Every `(nextto agent x)` over the world's objects (where the agent may stand)."""
        return frozenset(("nextto", self.agent, o) for o in self.objects)

    @cached_property
    def inside_probes(self) -> dict[str, tuple[tuple[str, Literal], ...]]:
        """instance -> ((holder, ("inside", instance, holder)), ...) for every holder: `_enclosed`'s set
        probes, built once per world instead of once per step."""
        return {inst: tuple((h, ("inside", inst, h)) for h in self.holders) for inst in self.objects}

    @cached_property
    def inside_sets(self) -> dict[str, frozenset[Literal]]:
        """instance -> every `(inside instance holder)`: `state.isdisjoint(...)` says in C that it is in nothing."""
        return {inst: frozenset(lit for _, lit in probes) for inst, probes in self.inside_probes.items()}

    @cached_property
    def enclosure_probe(self) -> dict[str, frozenset[Literal]]:
        """instance -> every `(inside instance holder)` and every `(ontop instance y)` for a y that can be moved
        or hold things (a plate that may stand in a fridge; not the floor, not fixed furniture of a room): when
        the state meets none of them, obj is neither in nor stacked on anything that a closed door could shut
        in, and `_enclosed` need not walk. Made on first use per object."""
        movable = frozenset(o for o in self.objects if o not in self.rooms and o != self.floor and o != self.agent)
        return _LazySets(lambda obj: self.inside_sets.get(obj, frozenset())
                         | frozenset(("ontop", obj, o) for o in movable if o != obj))

    @cached_property
    def in_openable(self) -> frozenset[Literal]:
        """Every `(inside x c)` with c openable: a state that meets none has nothing a closed door could shut in."""
        openable = self.able.get("openable", frozenset())
        return frozenset(("inside", o, c) for c in openable for o in self.objects if o != c)

    @cached_property
    def bearing(self) -> dict[str, frozenset[Literal]]:
        """instance -> every `(ontop x instance)` and `(inside x instance)`: what rests on or in it (a stacking
        cycle can only form through an object that bears something). Made on first use per object."""
        return _LazySets(lambda obj: frozenset(lit for o in self.objects if o != obj
                                               for lit in (("ontop", o, obj), ("inside", o, obj))))

    @cached_property
    def steps(self) -> dict[tuple[str, tuple[str, ...]], Callable]:
        """(action name, args) -> its compiled step function (`step_function`), made on first use."""
        return {}

    def __reduce__(self):
        """Pickled as its fields only: the caches (lazy literal sets, step functions) hold closures."""
        return (type(self), (self.objects, self.abilities, self.agent, self.floor, self.rooms))

    @cached_property
    def own(self) -> dict[str, frozenset[Literal]]:
        """instance -> every literal by which it rests somewhere (`ontop`, `inside`, ... `nextto`, and their
        hidden `~` memories) over the world's objects, made on first use per object: `state & world.own[x]`
        is x's own relations, found in C instead of by a Python pass over the state."""
        relations = [*_OWN_RELATIONS, *(HIDDEN_PREFIX + r for r in _OWN_RELATIONS)]
        return _LazySets(lambda obj: frozenset((r, obj, o) for r in relations for o in self.objects))

    @cached_property
    def rests(self) -> dict[str, frozenset[Literal]]:
        """instance -> every `(ontop instance x)` and `(inside instance x)`: what it is on or in, made on first use."""
        return _LazySets(lambda obj: frozenset(lit for o in self.objects for lit in (("ontop", obj, o),
                                                                                      ("inside", obj, o))))

    @cached_property
    def held_in(self) -> dict[str, frozenset[Literal]]:
        """container -> every `(inside x c)`, `(ontop x c)`, `(contains c x)`, `(filled c x)` over the world's
        objects: `state & world.held_in[c]` is what c holds, made on first use per container."""
        return _LazySets(lambda c: frozenset(lit for o in self.objects for lit in (
            ("inside", o, c), ("ontop", o, c), ("contains", c, o), ("filled", c, o))))

    @cached_property
    def offers(self) -> dict[str, frozenset[Literal]]:
        """instance -> every `(insource i x)`, `(filled i x)`, `(contains i x)`: what it may give (FILL, POUR)."""
        return _LazySets(lambda i: frozenset(lit for o in self.objects for lit in (
            ("insource", i, o), ("filled", i, o), ("contains", i, o))))

    @cached_property
    def covers(self) -> dict[str, frozenset[Literal]]:
        """instance -> every `(covered i x)`: what WIPE may remove from it."""
        return _LazySets(lambda i: frozenset(("covered", i, o) for o in self.objects))

    @cached_property
    def carried(self) -> dict[str, frozenset[Literal]]:
        """held object -> `agent_nextto_literals | nextto[held]`: what NAVIGATE_TO with it in hand replaces."""
        return _LazySets(lambda held: self.agent_nextto_literals | self.nextto[held])

    @cached_property
    def nextto(self) -> dict[str, frozenset[Literal]]:
        """instance -> every `(nextto obj x)` and `(nextto x obj)` over the world's objects, made on first use."""
        return _LazySets(lambda obj: frozenset([*(("nextto", obj, o) for o in self.objects),
                                                *(("nextto", o, obj) for o in self.objects)]))

    @cached_property
    def placed(self) -> dict[str, frozenset[Literal]]:
        """instance -> `own[obj] | nextto[obj]`: what setting obj down may change, made on first use."""
        return _LazySets(lambda obj: self.own[obj] | self.nextto[obj])

    @cached_property
    def heat_effects(self) -> dict[str, tuple[bool, bool]]:
        """instance -> (COOK makes it `cooked`: cookable and not a substance, COOK makes it `hot`: heatable
        or cookable), made on first use per instance."""
        def effects(inst: str) -> tuple[bool, bool]:
            cookable = self.has(inst, "cookable")
            return (cookable and not knowledge.is_substance(self.objects[inst]),
                    cookable or self.has(inst, "heatable"))
        return _LazySets(effects)

    @cached_property
    def heat_sources(self) -> dict[str, dict | None]:
        """instance -> its bddl heatSource annotation ({} for a heat_source ability without one), for the
        instances that can heat: COOK looks a support up here instead of in bddl's tables."""
        out: dict[str, dict | None] = {}
        for inst, synset in self.objects.items():
            params = knowledge.heat_params(synset)
            if params is not None or self.has(inst, "heat_source"):
                out[inst] = params
        return out

    def instances_of(self, synset: str) -> list[str]:
        return list(self._by_synset.get(synset, ()))

    @cached_property
    def _by_synset(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for inst, synset in self.objects.items():
            out.setdefault(synset, []).append(inst)
        return {k: tuple(v) for k, v in out.items()}


class _LazySets(dict):
    """A dict that makes a missing entry on first lookup (`make(key)`) and keeps it: `d[key]` stays one C probe."""

    def __init__(self, make) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, key):
        value = self[key] = self._make(key)
        return value


class PreconditionError(Exception):
    """A failed precondition; its message is recorded in the trace."""


StepFunction = Callable[[State], tuple[State, Action]]  # one action in one world: state -> (state, recorded)


def _holding(state: State, world: World) -> str | None:
    """What the agent holds (one of the world's objects), or None, found by set operations."""
    for lit in state & world.grasp_literals:
        return lit[2]
    return None


def _reachable(state: State, world: World, obj: str) -> bool:
    """Held, or within reach of where the agent stands (see the module docstring). Literals are found by
    intersecting the state with the world's literal sets (`agent_nextto_literals`, `nextto`, `own`): set
    operations in C, not passes over the state in Python."""
    agent = world.agent
    if ("nextto", agent, obj) in state or ("grasped", agent, obj) in state:  # the common case, in O(1)
        return True
    standing = state & world.agent_nextto_literals
    if not standing:
        return False
    anchors = {lit[2] for lit in standing}
    taken = [a for a in anchors if ("grasped", agent, a) in state]  # the object the agent stands at, since grasped
    near = set()
    for anchor in anchors:  # what stands next to where the agent stands
        for lit in state & world.nextto[anchor]:
            if agent not in lit:
                near.add(lit[2] if lit[1] in anchors else lit[1])
    anchors |= near
    supports = {s for anchor in anchors for s in _rests_on(state, world, anchor)}
    for anchor in taken:  # the agent took the object it stands at (GRASP, no walk since): it still stands where
        # that was (the open fridge the apple came out of), see (****); not what a carried object is next to
        lifted_from = [lit[2] for lit in state & world.own[anchor] if lit[0] in _REMEMBERED_SUPPORT]
        while lifted_from:  # and what that rests in or on (the fridge the tupperware stands in)
            where = lifted_from.pop()
            if where not in supports and world.objects.get(where) != FLOOR_SYNSET:
                supports.add(where)
                lifted_from += _rests_on(state, world, where)
    if obj in supports:  # the surface or container the agent stands at
        return True
    anchors |= {s for s in supports if world.objects.get(s) != FLOOR_SYNSET}
    current, seen = obj, set()
    while current is not None and current not in seen:  # walk up what supports / contains obj
        if current in anchors:
            return True
        seen.add(current)
        current = min(_rests_on(state, world, current), default=None)
    return False


def _rests_on(state: State | set[Literal], world: World, obj: str) -> list[str]:
    """What obj is on or in (unsorted), found through `world.own`; nothing for an unknown object."""
    if obj not in world.objects:
        return [lit[2] for lit in state if lit[1] == obj and lit[0] in ("ontop", "inside")]
    return [lit[2] for lit in state & world.rests[obj]]


def _enclosed(state: State, world: World, obj: str) -> str | None:
    """The first closed openable container around obj, or None: obj is inside it, or rests on something (a plate,
    a tray), transitively, that is inside it (an apple on a plate in a shut fridge is as shut in as the plate).
    Being on top of a closed container is not being in it. Callers first test `world.enclosure_probe[obj]`, so
    the walk runs only for an object in or stacked on something that can be shut in."""
    if state.isdisjoint(world.in_openable):
        return None  # nothing is inside anything that can be shut: no walk
    openable = world.able.get("openable", ())
    frontier, seen = [obj], set()
    while frontier:
        current = frontier.pop()
        seen.add(current)
        for lit in _supports(state, world, current):
            container = lit[2]
            if lit[0] == "inside" and container in openable and ("open", container) not in state:
                return container
            if container not in seen:
                frontier.append(container)
    return None


def _supports(state: State, world: World, obj: str) -> Iterable[Literal]:
    """obj's `(ontop obj y)` and `(inside obj y)` literals (any object name, also one the world does not know)."""
    if obj in world.objects:
        return state & world.rests[obj]
    return [lit for lit in state if (lit[0] == "ontop" or lit[0] == "inside") and lit[1] == obj]


def _rests_on_transitively(state: State, world: World, obj: str, base: str) -> bool:
    """Whether obj rests on or in `base`, directly or through what it rests on (a bowl on a board on a tray)."""
    frontier, seen = [obj], set()
    while frontier:
        current = frontier.pop()
        seen.add(current)
        for lit in _supports(state, world, current):
            if lit[2] == base:
                return True
            if lit[2] not in seen:
                frontier.append(lit[2])
    return False


def _drop_object(state: set[Literal], obj: str) -> None:
    """A consumed object: every literal naming it goes (a transition used it up)."""
    for lit in [lit for lit in state if obj in lit[1:]]:
        state.discard(lit)


def _condition_reader(state: State, world: World, obj: str):
    def holds(predicate: str, value) -> bool:
        if predicate == "saturated":
            return any(("saturated", obj, i) in state for i in world.instances_of(value))
        if predicate == "toggled_on":
            return (("toggled_on", obj) in state) == bool(value) or not world.has(obj, "toggleable")
        return True
    return holds


def _holds_bulk(world: World, container: str, substance: str) -> bool:
    """Whether `substance` can be taken out of `container` that holds it (`knowledge.holds_bulk`); a synset
    bddl does not know (hand-written samples) falls back on its `fillable` ability."""
    synset = world.objects.get(container, "")
    if knowledge.properties(synset):
        return knowledge.holds_bulk(synset, world.objects.get(substance, ""))
    return world.has(container, "fillable")


def _substances_of(state: State, world: World, source: str, taking: bool = False) -> set[str]:
    """Substance instances an object offers: what it is filled with or contains, what it is a source of
    (`insource`), and what bddl says it emits (particleSource / particleApplier), when its conditions hold
    (a sink must be on, a salt shaker tipped: toggled on). `taking` (FILL, SOAK from it): what it is filled
    with counts only where it is a container of that substance (`_holds_bulk`: rice lying in an oven does
    not fill a bowl)."""
    out = set()
    conditions = knowledge.source_substances(world.objects.get(source, ""))
    reader = _condition_reader(state, world, source)
    for lit in state & world.offers[source]:
        if lit[0] == "insource":
            need = conditions.get(world.objects.get(lit[2], ""), [])
            if knowledge.conditions_met(need, reader):
                out.add(lit[2])
        elif not taking or _holds_bulk(world, source, lit[2]):  # filled with / contains it
            out.add(lit[2])
    for synset, need in conditions.items():
        if knowledge.conditions_met(need, reader):
            out |= {i for i in world.instances_of(synset) if ("future", i) not in state}
    return out


def _absent(state: State | set[Literal], inst: str) -> bool:
    """A substance instance no literal mentions (nothing of it exists yet): a transition can make it."""
    for lit in state:  # noqa: SIM110 - a plain loop: no generator frame per literal
        if inst in lit[1:]:
            return False
    return True


def _make_real(state: set[Literal], world: World, synset: str, count: int,
               where: tuple[str, str] | None) -> list[str]:
    """Turn up to `count` future instances of `synset` real, placed `where` (relation, object); returns them."""
    made: list[str] = []
    for inst in world.instances_of(synset):
        if len(made) >= count:
            break
        if ("future", inst) in state or (knowledge.is_substance(synset) and _absent(state, inst)):
            state.discard(("future", inst))
            state.add(("real", inst))
            if where is not None:
                relation, target = where
                if knowledge.is_substance(synset) and relation == "inside":
                    state |= {("contains", target, inst), ("filled", target, inst)}
                elif knowledge.is_substance(synset):
                    state.add(("covered", target, inst))
                else:
                    state.add((relation, inst, target))
            made.append(inst)
    return made


def _contents(state: State | set[Literal], world: World, container: str) -> list[str]:
    """What `container` holds, sorted: objects inside or on it, substances it contains or is filled with."""
    return _listed(state & world.held_in[container], container)


def _listed(holds: Iterable[Literal], container: str) -> list[str]:
    """The sorted instances `holds` (literals of `world.held_in[container]` that hold) name beside the container."""
    return sorted({lit[2] if lit[1] == container else lit[1] for lit in holds})


def _state_holds(state: State | set[Literal], world: World, instances: Sequence[str], predicate: str,
                 value: bool) -> bool:
    """A rule's unary input state on one instance: (cooked x) is False / True as the rule asks."""
    return all(((predicate, inst) in state) == value for inst in instances)


def _rule_inputs(state: State | set[Literal], world: World, rule: knowledge.Rule,
                 by_synset: Mapping[str, list[str]]) -> dict[str, list[str]] | None:
    """The instances one firing of `rule` consumes, or None when the container lacks them: `count` objects of
    each object synset in the states the rule's `input_states` ask for (dough not yet cooked), and the
    substance of each substance synset; pair states ((ontop egg dough), (covered pastry filling)) must hold
    between chosen inputs."""
    unary = {syns[0]: [] for syns, _, _ in rule.input_states if len(syns) == 1}
    for syns, predicate, value in rule.input_states:
        if len(syns) == 1:
            unary[syns[0]].append((predicate, value))
    chosen: dict[str, list[str]] = {}
    for synset, count in rule.inputs:
        present = by_synset.get(synset) or []
        if not present and synset == knowledge.BOILING_WATER and rule.kind == "substance_watercooking":
            present = by_synset.get(knowledge.WATER) or []  # the pot's water boils in this same COOK step
        if knowledge.is_substance(synset):
            if not present:
                return None
            chosen[synset] = list(present)
            continue
        fit = [i for i in present if all(_state_holds(state, world, [i], p, v) for p, v in unary.get(synset, ()))]
        if len(fit) < max(1, int(count)):
            return None
        chosen[synset] = fit[:max(1, int(count))]
    for syns, predicate, value in rule.input_states:
        if len(syns) != 2:
            continue
        firsts = chosen.get(syns[0]) or world.instances_of(syns[0])
        seconds = chosen.get(syns[1]) or world.instances_of(syns[1])
        if not any(((predicate, a, b) in state) == value for a in firsts for b in seconds):
            return None
    return chosen


def _key_needs(rule: knowledge.Rule) -> frozenset[str]:
    """The input synsets a container must hold for `rule` to be tried (boiling water is made in the step)."""
    if rule.kind == "substance_watercooking":
        return rule.needs - {knowledge.BOILING_WATER}
    return rule.needs


_RULE_INDEX: dict[int, tuple[tuple[knowledge.Rule, ...], dict[str, list[int]], list[int]]] = {}


def _rule_index(rules: tuple[knowledge.Rule, ...]) -> tuple[dict[str, list[int]], list[int]]:
    """(needed synset -> indices of the rules indexed under it, indices of rules that need nothing), kept per
    tuple: `knowledge.rules_for` returns the same tuple object for the same kind and synset. Each rule is
    indexed under one of the synsets it needs (a rule whose needs are all present has that one present)."""
    entry = _RULE_INDEX.get(id(rules))
    if entry is None or entry[0] is not rules:
        by_need: dict[str, list[int]] = {}
        free: list[int] = []
        for i, rule in enumerate(rules):
            needs = _key_needs(rule)
            if needs:
                by_need.setdefault(min(needs), []).append(i)
            else:
                free.append(i)
        entry = (rules, by_need, free)
        if len(_RULE_INDEX) > 4096:  # bounded: callers passing fresh tuples cannot grow it without end
            _RULE_INDEX.clear()
        _RULE_INDEX[id(rules)] = entry
    return entry[1], entry[2]


def _all_need_inputs(rules: tuple[knowledge.Rule, ...]) -> bool:
    """Whether every rule needs some input synset, so that none can fire in an empty container."""
    return not _rule_index(rules)[1]


def _candidates(rules: Sequence[knowledge.Rule], present) -> list[knowledge.Rule]:
    """The rules, in their order, that could fire with the synsets `present` (`_rule_index`), so a pan
    holding an egg looks at the egg's rules only, not at all 32 heat_cook rules. Lists (built per step) and
    short tuples are not indexed."""
    if not isinstance(rules, tuple) or len(rules) < 8:
        return list(rules)
    by_need, free = _rule_index(rules)
    hits = [i for synset in present for i in by_need.get(synset, ())]
    if not hits and not free:
        return []
    return [rules[i] for i in sorted(set(hits).union(free))]


MAX_RULE_FIRINGS = 64  # one step runs a rule again while its inputs last (two doughs bake into two batches)


def _run_rules(state: set[Literal], world: World, container: str, rules: Sequence[knowledge.Rule],
               heat_source: str | None = None, contents: Sequence[str] | None = None) -> bool:
    """Fire every rule whose inputs are among the container's contents, exactly as bddl's rule says: it
    consumes `count` of each input object (all of an input substance in the container) and makes `count`
    of each output object (the activity's `future` instances; a substance becomes `real` and contained),
    with the rule's output states; it fires again while inputs and free outputs remain. True when one fired.
    `contents` is `_contents(state, world, container)` when the caller has it (COOK runs four kinds of rules on one
    container); it must be current."""
    if not rules:  # most steps: no rule of this kind can fire in this container at all
        return False
    fired = False
    by_synset: dict[str, list[str]] | None = {}  # what the container holds, by synset (recomputed on firing)
    for inst in _contents(state, world, container) if contents is None else contents:  # `contents`: the caller's
        by_synset.setdefault(world.objects.get(inst, ""), []).append(inst)
    present = by_synset.keys()
    candidates = _candidates(rules, present)
    if not candidates:
        return False
    rules = [r for r in candidates if r.needs <= present or (
        r.kind == "substance_watercooking" and r.needs - {knowledge.BOILING_WATER} <= present)]
    for rule in rules:
        if rule.heat_sources and (heat_source is None or world.objects[heat_source] not in rule.heat_sources):
            continue
        for _ in range(MAX_RULE_FIRINGS):
            if by_synset is None:
                by_synset = {}
                for inst in _contents(state, world, container):
                    by_synset.setdefault(world.objects.get(inst, ""), []).append(inst)
            held = by_synset.keys()
            if not rule.needs <= held and not (rule.kind == "substance_watercooking"
                                               and rule.needs - {knowledge.BOILING_WATER} <= held):
                break  # the common case: an input is missing altogether
            chosen = _rule_inputs(state, world, rule, by_synset)
            if chosen is None:
                break
            if not all(_free_outputs(state, world, syn) for syn, _ in rule.outputs):
                break
            for synset, instances in chosen.items():
                for inst in instances:
                    if knowledge.is_substance(synset):
                        state.discard(("contains", container, inst))
                        state.discard(("filled", container, inst))
                    else:
                        _drop_object(state, inst)
            for synset, count in rule.outputs:
                made = _make_real(state, world, synset, max(1, int(count)), ("inside", container))
                for out_synset, predicate, value in rule.output_states:
                    if out_synset == synset:
                        for inst in made:
                            (state.add if value else state.discard)((predicate, inst))
            fired = True
            by_synset = None
    return fired


def _free_outputs(state: set[Literal], world: World, synset: str) -> list[str]:
    """Instances of an output synset a transition can still make (`future` ones; a substance not yet present)."""
    return [i for i in world.instances_of(synset)
            if ("future", i) in state or (knowledge.is_substance(synset) and _absent(state, i))]


def _source_active(state: State, world: World, source: str, params: Mapping | None, item: str | None) -> bool:
    """Whether a heat or cold source acts on `item` (None: its own contents), per its bddl annotation:
    `requires_toggled_on` (on; an unannotated toggleable source must be on too), `requires_closed` (its door
    shut: an oven or a microwave with the door open does not heat), `requires_inside` (item inside it, not on
    it)."""
    params = params or {}
    if params.get("requires_toggled_on", 1.0 if not params else 0.0) and world.has(source, "toggleable") \
            and ("toggled_on", source) not in state:
        return False
    if params.get("requires_closed") and ("open", source) in state:
        return False
    return not (item is not None and params.get("requires_inside") and ("inside", item, source) not in state)


def _heat_source_of(state: State, world: World, obj: str) -> str | None:
    """An active heat source obj sits on or in, directly or through one container (see `_source_active`)."""
    sources = world.heat_sources
    first = sorted(_rests_on(state, world, obj))
    for current in [obj, *first]:
        for support in first if current is obj else sorted(_rests_on(state, world, current)):
            if support not in sources:
                continue
            if _source_active(state, world, support, sources[support], current):
                return support
    if world.has(obj, "heat_source") and world.has(obj, "toggleable") and ("toggled_on", obj) in state \
            and _source_active(state, world, obj, knowledge.heat_params(world.objects[obj]), None):
        return obj  # an appliance heats its own contents (a kettle, a toaster)
    return None


def _cold_source_of(state: State, world: World, obj: str) -> str | None:
    for current in [obj, *sorted(_rests_on(state, world, obj))]:
        for support in sorted(_rests_on(state, world, current)):
            params = knowledge.cold_params(world.objects[support])
            if params is None and not world.has(support, "cold_source"):
                continue
            if _source_active(state, world, support, {"requires_toggled_on": 0.0, **(params or {})}, current):
                return support
    return None


def _settle(state: set[Literal], world: World, obj: str, relation: str, target: str) -> None:
    """x is set down by (relation, target): back where it was restores its old relations; else it moved."""
    memory, own_nextto = set(), []
    for lit in state & world.placed[obj]:  # x's relations, its memories (always of x) and every nextto naming x
        shown = _UNHIDE.get(lit[0])
        if shown is not None:
            memory.add((shown, obj, lit[2]))
            state.discard(lit)
        elif lit[0] == "nextto":
            own_nextto.append(lit)
    if relation != "ontop" and relation != "inside":
        return
    if (relation, obj, target) in memory:
        for lit in own_nextto:
            if lit[1] == obj:
                state.discard(lit)
        state |= memory
        return
    state.difference_update(own_nextto)


def _floor_at(state: State, world: World, obj: str) -> str | None:
    """The floor of obj's room (the scene's `inroom` facts), else the scene's first floor."""
    room = world.rooms.get(obj)
    if room is not None:
        for inst in sorted(world.rooms):
            if world.rooms[inst] == room and world.objects.get(inst) == FLOOR_SYNSET:
                return inst
    return world.floor


def _held_target(world: World, action: Action) -> StepFunction:
    """PLACE_*, DRAPE, ATTACH, FILL, POUR, APPLY, SOAK: the step on the object in hand and its target. What
    does not depend on the state (argument count, known objects) is settled here, once; the checks still
    fail in the same order as they are listed (the held object's checks come first)."""
    agent, objects, name, args = world.agent, world.objects, action.name, action.args
    if len(args) not in (1, 2):
        return _fails(f"{name} takes (target) or (object, target)")
    first = args[0] if len(args) == 2 else None
    target = args[-1]
    known = target in objects
    near, future = ("nextto", agent, target), ("future", target)
    inside = world.enclosure_probe[target] if known else frozenset()
    body = _FILL_POUR.get(name, _place)

    def step(state: State) -> tuple[State, Action]:
        held = _holding(state, world)
        if held is None:
            raise PreconditionError(f"{name} needs an object in hand")
        if first is not None:
            if first not in objects:
                raise PreconditionError(f"unknown object {first!r}")
            if first != held:
                raise PreconditionError(f"{first} is not in hand (holding {held})")
        if not known:
            raise PreconditionError(f"unknown object {target!r}")
        if target in (held, agent):
            raise PreconditionError(f"cannot {name} {held} with {target}")
        if future in state:
            raise PreconditionError(_not_yet(target))
        if near not in state and not _reachable(state, world, target):
            raise PreconditionError(f"{target} is not reachable (NAVIGATE_TO it first)")
        closed = None if state.isdisjoint(inside) else _enclosed(state, world, target)
        if closed is not None:
            raise PreconditionError(f"{target} is inside closed {closed} (OPEN it first)")
        recorded = action if first is not None else Action(name, (held, target))  # always written (held, target)
        return body(state, world, name, held, target), recorded
    return step


def _fill_soak(state: State, world: World, name: str, held: str, target: str) -> State:
    substances = _substances_of(state, world, target, taking=True)
    if not substances:
        raise PreconditionError(f"{target} has no substance to {name.lower()} from")
    new = set(state)
    if name == "FILL":
        if not world.has(held, "fillable"):
            raise PreconditionError(f"{held} cannot be filled")
        for s in substances:
            new |= {("filled", held, s), ("contains", held, s)}
    else:
        new |= {("saturated", held, s) for s in substances}
    return frozenset(new)


def _pour_apply(state: State, world: World, name: str, held: str, target: str) -> State:
    if world.has(held, "openable") and ("open", held) not in state:  # review round 6: hay tipped out of a shut carton
        raise PreconditionError(f"{held} is shut: open it before pouring out of it")
    carried = _substances_of(state, world, held)
    scraped = set()
    if name == "POUR":  # the dice lying on the chopping board are tipped into the pan (all of them)
        scraped = {lit[2] for lit in state & world.covers[held] if _is_dice(world.objects.get(lit[2], ""))}
        carried |= scraped
    if not carried:
        raise PreconditionError(f"{held} holds no substance")
    new = set(state)
    for s in scraped:
        new.discard(("covered", held, s))
    for s in carried:
        if name == "POUR" and world.has(target, "particle_sink"):  # poured down the drain: h empties
            new -= {("filled", held, s), ("contains", held, s)}
        elif name == "APPLY" or not world.has(target, "fillable"):
            new.add(("covered", target, s))
        else:
            new |= {("contains", target, s), ("filled", target, s)}
    return frozenset(new)


def _is_dice(synset: str) -> bool:
    """Cut food in pieces (diced__x, cooked__diced__x): what lies on a board after DICE and is tipped off it."""
    return synset.startswith(("diced__", "cooked__diced__"))


def _place(state: State, world: World, name: str, held: str, target: str) -> State:
    if (name == "PLACE_ON_TOP" or name == "PLACE_INSIDE") and not state.isdisjoint(world.bearing[held]) \
            and _rests_on_transitively(state, world, target, held):
        raise PreconditionError(f"{target} rests on {held}: {held} cannot go on or in it (a stacking cycle)")
    new = set(state)
    new.discard(("grasped", world.agent, held))
    if name == "PLACE_ON_TOP":
        _settle(new, world, held, "ontop", target)
        new |= {("ontop", held, target), ("touching", held, target)}
    elif name == "PLACE_INSIDE":
        if target not in world.able.get("container", ()):
            raise PreconditionError(f"{target} is not a container")
        if target in world.able.get("openable", ()) and ("open", target) not in state:
            raise PreconditionError(f"{target} is closed (OPEN it first)")
        _settle(new, world, held, "inside", target)
        new.add(("inside", held, target))
    elif name == "PLACE_NEXT_TO":
        _settle(new, world, held, "nextto", target)
        new.add(("nextto", held, target))
        joined = [(lit[0], held, lit[2]) for lit in state if lit[0] in ("ontop", "inside") and lit[1] == target]
        new |= set(joined)
        floor = None if joined else _floor_at(state, world, target)
        if floor is not None and floor != target:  # beside fixed furniture: on the floor of its room
            new.add(("ontop", held, floor))
    else:
        relation = {"PLACE_UNDER": "under", "PLACE_OVER": "overlaid", "DRAPE": "draped", "ATTACH": "attached"}[name]
        if name in ("PLACE_OVER", "DRAPE") and not (world.has(held, "drapeable") or world.has(held, "foldable")):
            raise PreconditionError(f"{held} cannot be draped")
        if name == "ATTACH" and not (world.has(held, "attachable") or world.has(target, "attachable")):
            raise PreconditionError(f"{held} cannot be attached")
        _settle(new, world, held, relation, target)
        new.add((relation, held, target))
        floor = _floor_at(state, world, target) if name == "PLACE_UNDER" else None
        if floor is not None and floor != target:  # under furniture: on the floor of its room
            new.add(("ontop", held, floor))
    return frozenset(new)


_FILL_POUR = {"FILL": _fill_soak, "SOAK": _fill_soak, "POUR": _pour_apply, "APPLY": _pour_apply}


def _transform(state: State, world: World, name: str, obj: str) -> State:
    """CUT, DICE, COOK, FREEZE, WIPE, MIX on a reachable object (see the module docstring)."""
    held = None if name == "COOK" or name == "FREEZE" else _holding(state, world)  # the tool in hand
    new = set(state)
    if name in ("CUT", "DICE"):
        if not (held is not None and world.has(held, "slicer")):
            raise PreconditionError(f"{name} needs a knife (a slicer) in hand")
        kind = "slice" if name == "CUT" else "dice"
        if not (world.has(obj, "sliceable" if name == "CUT" else "diceable")):
            raise PreconditionError(f"{obj} cannot be {kind}d")
        if kind == "dice" and ("cooked", obj) in state:
            kind = "dice_cooked"
        derived = knowledge.derivative(world.objects[obj], kind)
        supports = sorted((lit[0], lit[2]) for lit in state if lit[0] in ("ontop", "inside") and lit[1] == obj)
        _drop_object(new, obj)
        if derived is not None:  # one cut makes this object's pieces only: bddl's slicing rule says 2 halves
            where = supports[0] if supports else None
            count = 1 if knowledge.is_substance(derived) else knowledge.slice_count(world.objects[obj])
            _make_real(new, world, derived, count, where)
        return frozenset(new)
    if name == "WIPE":
        if not (held is not None and world.has(held, "cleaning_tool")):
            raise PreconditionError("WIPE needs a cleaning tool in hand")
        if not (obj != held):
            raise PreconditionError("cannot wipe the tool with itself")
        reader = _condition_reader(state, world, held)
        for lit in state & world.covers[obj]:
            if knowledge.conditions_met(knowledge.remover_condition(world.objects[held], world.objects.get(lit[2], "")),
                                        reader):
                new.discard(lit)
        return frozenset(new)
    if name == "MIX":
        if not (held is not None and world.has(held, "mixing_tool")):
            raise PreconditionError("MIX needs a mixing tool in hand")
        _run_rules(new, world, obj, knowledge.rules_for("mixing_stick", world.objects[obj]))
        return frozenset(new)
    if name == "FREEZE":
        if not (_cold_source_of(state, world, obj) is not None):
            raise PreconditionError(f"{obj} is not inside an active cold source")
        new.add(("frozen", obj))
        new.discard(("hot", obj))
        return frozenset(new)
    # COOK
    source = _heat_source_of(state, world, obj)
    if not (source is not None):
        raise PreconditionError(f"{obj} is not on or in an active heat source")
    if world.objects[source] in knowledge.BARE_BURNERS and world.heat_effects[obj][0] \
            and ("ontop", obj, source) in state:
        raise PreconditionError(f"{obj} lies directly on the burner of {source} (cook it in a pan or pot)")
    # recipes first (their inputs are raw: "dough not cooked"), then what is left cooks or heats
    synset, held_in = world.objects[obj], world.held_in[obj]
    holds = new & held_in  # what obj holds; made again whenever a rule fired
    contents = _listed(holds, obj)
    rules = knowledge.rules_for("heat_cook", synset)
    if (contents or not _all_need_inputs(rules)) and _run_rules(new, world, obj, rules, source, contents):
        holds = new & held_in
        contents = _listed(holds, obj)
    effects = world.heat_effects
    bare = obj == source and world.objects[obj] in knowledge.BARE_BURNERS
    for item in [obj, *(lit[1] for lit in holds if lit[0] == "inside" or lit[0] == "ontop")]:
        cooks, heats = effects[item]
        if bare and cooks and item != obj:  # food lying on the bare burner is not cooked (only burnt)
            continue
        if cooks:
            new.add(("cooked", item))
        if heats:
            new.add(("hot", item))
            new.discard(("frozen", item))
    # substances cook by bddl's substance rules: water -> cooked__water, then brown rice needs that boiling water
    contained = None
    for kind in ("substance_cooking", "substance_watercooking"):
        if contained is None:
            contained = [r for syn in sorted({world.objects.get(lit[2], "") for lit in holds
                                              if lit[0] == "contains" or lit[0] == "filled"})
                         for r in knowledge.substance_cooking_rules(syn)]
        rules = [r for r in contained if r.kind == kind]
        if _run_rules(new, world, obj, rules, source, contents):
            holds = new & held_in
            contents, contained = _listed(holds, obj), None
    rules = knowledge.rules_for("melting", synset)
    if contents or not _all_need_inputs(rules):
        _run_rules(new, world, obj, rules, source, contents)
    return frozenset(new)


def _fails(message: str) -> StepFunction:
    """A step that fails whatever the state (unknown action or object, an ability the object lacks)."""
    def step(state: State) -> tuple[State, Action]:
        raise PreconditionError(message)
    return step


def _release(world: World, action: Action) -> StepFunction:
    args = action.args
    own, floor, agent = world.own, world.floor, world.agent

    def step(state: State) -> tuple[State, Action]:
        held = _holding(state, world)
        if held is None:
            raise PreconditionError("RELEASE needs an object in hand")
        if len(args) > 1:
            raise PreconditionError("RELEASE takes at most one argument")
        if args and args[0] != held:
            raise PreconditionError(f"{args[0]} is not in hand (holding {held})")
        new = set(state)
        new.discard(("grasped", agent, held))
        for lit in state & own[held]:
            if lit[0] in _UNHIDE:
                new.discard(lit)
        if floor is not None:
            new.add(("ontop", held, floor))
        return frozenset(new), action if args else Action("RELEASE", (held,))
    return step


def _navigate(world: World, action: Action, obj: str) -> StepFunction:
    grasp_literals, standing, carried = world.grasp_literals, world.agent_nextto_literals, world.carried
    there, in_hand = ("nextto", world.agent, obj), ("grasped", world.agent, obj)
    stand_at = frozenset((there,))

    def step(state: State) -> tuple[State, Action]:  # frozenset operators on frozensets: the fastest form
        grasped = state & grasp_literals
        if not grasped:  # the agent's old place goes: set operations, no Python loop over the state
            return (state - standing) | stand_at, action
        if in_hand in grasped:
            raise PreconditionError(f"{obj} is in hand")
        for lit in grasped:  # the held object comes along
            held = lit[2]
            return (state - carried[held]) | {there, ("nextto", held, obj)}, action
        raise AssertionError("unreachable")  # pragma: no cover - `grasped` is not empty
    return step


def _grasp(world: World, action: Action, obj: str) -> StepFunction:
    if obj not in world.able.get("graspable", ()):
        return _fails(f"{obj} cannot be grasped")
    grasp_literals, grip, own = world.grasp_literals, ("grasped", world.agent, obj), world.own[obj]

    def step(state: State) -> tuple[State, Action]:
        """x leaves its support: its lifted relations go, remembered as hidden literals; `nextto` stays.
        Only x's own literals change, so only they are visited. The memory of an earlier lift goes; a
        relation it shares with the new memory is made again."""
        if not state.isdisjoint(grasp_literals):
            raise PreconditionError(f"hand is full (holding {_holding(state, world)})")
        new = set(state)
        remembered = [grip]
        for lit in state & own:
            hide = _HIDE.get(lit[0])
            if hide is None:  # a hidden memory of an earlier lift
                new.discard(lit)
                continue
            remembered.append((hide, obj, lit[2]))
            if lit[0] in _LIFTED:
                new.discard(lit)
        new.update(remembered)
        return frozenset(new), action
    return step


def _open_close(world: World, action: Action, obj: str) -> StepFunction:
    if obj not in world.able.get("openable", ()):
        return _fails(f"{obj} cannot be opened or closed")
    is_open = ("open", obj)
    literal = frozenset((is_open,))
    opens = action.name == "OPEN"

    def step(state: State) -> tuple[State, Action]:
        if opens:
            if is_open in state:
                raise PreconditionError(f"{obj} is already open")
            return state | literal, action
        if is_open not in state:
            raise PreconditionError(f"{obj} is already closed")
        return state - literal, action
    return step


def _fold(world: World, action: Action, obj: str) -> StepFunction:
    if not world.has(obj, "foldable"):
        return _fails(f"{obj} cannot be folded")
    folded, unfolded = frozenset((("folded", obj),)), frozenset((("unfolded", obj),))
    now, was = (folded, unfolded) if action.name == "FOLD" else (unfolded, folded)

    def step(state: State) -> tuple[State, Action]:
        return (state - was) | now, action
    return step


def _detach(world: World, action: Action, obj: str) -> StepFunction:
    def step(state: State) -> tuple[State, Action]:
        attached = {lit for lit in state if lit[0] == "attached" and obj in lit[1:]}
        if not attached:
            raise PreconditionError(f"{obj} is not attached to anything")
        return state - attached, action
    return step


def _transform_step(world: World, action: Action, obj: str) -> StepFunction:
    name = action.name

    def step(state: State) -> tuple[State, Action]:
        return _transform(state, world, name, obj), action
    return step


def _toggle(world: World, action: Action, obj: str) -> StepFunction:
    if obj not in world.able.get("toggleable", ()):
        return _fails(f"{obj} cannot be toggled")
    on = ("toggled_on", obj)
    literal = frozenset((on,))
    if action.name == "TOGGLE_OFF":
        def off(state: State) -> tuple[State, Action]:
            if on not in state:
                raise PreconditionError(f"{obj} is already off")
            return state - literal, action
        return off
    machine_rules = knowledge.rules_for("single_toggleable_machine", world.objects[obj])
    washer = world.objects[obj] in knowledge.WASHER_SYNSETS
    lidded = runs_closed(world, obj)
    is_open = ("open", obj)

    def step(state: State) -> tuple[State, Action]:
        if on in state:
            raise PreconditionError(f"{obj} is already on")
        if not machine_rules and not washer:
            return state | literal, action
        if lidded and is_open in state:  # a blender runs with its lid on
            raise PreconditionError(f"{obj} is open (CLOSE its lid before switching it on)")
        new = set(state)
        new.add(on)
        if machine_rules and _garbage(new, world, obj, machine_rules):
            return frozenset(new), action
        _run_rules(new, world, obj, machine_rules)
        if washer:
            _wash(new, world, obj)
        return frozenset(new), action
    return step


def runs_closed(world: World, obj: str) -> bool:
    """Whether obj is a machine that runs only with its lid closed: it has a lid (openable) and bddl's machine
    rules (single_toggleable_machine: a blender, a food processor) run in it. TOGGLE_ON of an open one fails."""
    return obj in world.able.get("openable", ()) and bool(
        knowledge.rules_for("single_toggleable_machine", world.objects.get(obj, "")))


def _garbage(state: set[Literal], world: World, machine: str, rules: Sequence[knowledge.Rule]) -> bool:
    """A machine whose recipe's inputs are all inside it together with an object no such recipe takes (a spoon
    left in the blender) makes garbage, as OmniGibson's machine rules do (a recipe is valid only without
    non-recipe objects; an invalid one falls back to garbage): everything inside is used up and nothing the
    recipe makes appears. True when that happened. A machine holding no complete recipe is left as it is."""
    contents = _contents(state, world, machine)
    if not contents:
        return False
    by_synset: dict[str, list[str]] = {}
    for inst in contents:
        by_synset.setdefault(world.objects.get(inst, ""), []).append(inst)
    present = by_synset.keys()
    complete = [r for r in rules if r.needs <= present]
    if not complete:
        return False
    objects = {syn for syn in present if not knowledge.is_substance(syn)}
    if any(objects <= {syn for syn, _ in r.inputs} for r in complete):
        return False  # a valid recipe: every object inside is one of its inputs
    for inst in contents:
        if knowledge.is_substance(world.objects.get(inst, "")):
            state.discard(("contains", machine, inst))
            state.discard(("filled", machine, inst))
        else:
            _drop_object(state, inst)
    return True


# Every primitive on one object, made for one (world, action) after the shared checks (known object, not the
# agent, reachable, not behind a closed door); NAVIGATE_TO, RELEASE and the held-target actions have their own.
_ONE_OBJECT = {
    "NAVIGATE_TO": _navigate, "GRASP": _grasp, "OPEN": _open_close, "CLOSE": _open_close, "FOLD": _fold,
    "UNFOLD": _fold, "DETACH": _detach, "TOGGLE_ON": _toggle, "TOGGLE_OFF": _toggle,
    **{name: _transform_step for name in ("CUT", "DICE", "COOK", "FREEZE", "WIPE", "MIX")},
}
MAX_COMPILED_STEPS = 4096  # per world: a planner's search or a model's invented actions cannot grow it without end


def _compile(world: World, action: Action) -> StepFunction:
    """The step function of one action in one world: what depends only on the action and the world (its
    arguments, abilities, the literals it tests) is looked up here, once; the function does the rest."""
    name = action.name
    factory = _ONE_OBJECT.get(name)
    if factory is None:
        if name in HELD_TARGET_ACTIONS:
            return _held_target(world, action)
        if name == "RELEASE":
            return _release(world, action)
        return _fails(f"unknown action {name!r}")
    args = action.args
    if len(args) != 1:
        return _fails(f"{name} takes one object argument, got {len(args)}")
    obj = args[0]
    if obj not in world.objects:
        return _fails(f"unknown object {obj!r}")
    if obj == world.agent:
        return _fails(f"{name} cannot act on the agent")
    body = factory(world, action, obj)
    future = ("future", obj)
    if factory is _navigate:
        def walk(state: State) -> tuple[State, Action]:
            if future in state:
                raise PreconditionError(_not_yet(obj))
            return body(state)
        return walk
    near, inside, doors = ("nextto", world.agent, obj), world.enclosure_probe[obj], name not in _THROUGH_DOORS

    def step(state: State) -> tuple[State, Action]:
        if future in state:
            raise PreconditionError(_not_yet(obj))
        if near not in state and not _reachable(state, world, obj):
            raise PreconditionError(f"{obj} is not reachable (NAVIGATE_TO it first)")
        if doors and not state.isdisjoint(inside):  # in or stacked in something: no grasp, toggle... through a door
            closed = _enclosed(state, world, obj)
            if closed is not None:
                raise PreconditionError(f"{obj} is inside closed {closed} (OPEN it first)")
        return body(state)
    return step


def _not_yet(obj: str) -> str:
    return f"{obj} does not exist yet (a `future` object: the step that makes it, a cut or a recipe, comes first)"


def step_function(world: World, action: Action) -> StepFunction:
    """`action`'s step function in `world`, made on first use and kept (at most MAX_COMPILED_STEPS per world):
    a plan step then costs one dict probe and one call, not the dispatch and static checks again. It holds
    no state: the same function runs on every state, and a failed check is raised afresh each time."""
    key = (action.name, action.args)
    steps = world.steps
    found = steps.get(key)
    if found is None:
        found = _compile(world, action)
        if len(steps) >= MAX_COMPILED_STEPS:
            steps.clear()
        steps[key] = found
    return found


def apply(state: State, world: World, action: Action) -> tuple[State, Action]:
    """Apply one action; returns (new state, the action as recorded). Raises PreconditionError.

    The checks run in one fixed order (the first that fails is the step's recorded reason): a known action;
    then for one-object actions one argument, a known object, not the agent, an object that exists (no
    `future` instance), and (except NAVIGATE_TO) reachable and not behind a closed door (COOK and FREEZE act
    through doors), then the action's own preconditions; held-target actions first need an object in hand."""
    return step_function(world, action)(state)


def _wash(state: set[Literal], world: World, washer: str) -> None:
    """A washer removes what covers the objects inside it, per bddl's washer rules."""
    held_substances = {world.objects.get(lit[2]) for lit in state if lit[0] in ("contains", "filled")
                       and lit[1] == washer}
    rules = knowledge.washer_rules()
    for item in [lit[1] for lit in state if lit[0] == "inside" and lit[2] == washer]:
        for lit in [lit for lit in state if lit[0] == "covered" and lit[1] == item]:
            needed = rules.get(world.objects.get(lit[2], ""))
            if needed is None or (needed and not held_substances & set(needed)):
                continue
            state.discard(lit)


def _recorded_failure(state: State, world: World, action: Action) -> Action:
    """A failed held-target step with one argument is recorded with the held object too (trigger matching)."""
    if action.name in HELD_TARGET_ACTIONS and len(action.args) == 1:
        held = _holding(state, world)
        if held is not None:
            return Action(action.name, (held, action.args[0]))
    return action


def execute(initial: State, world: World, plan: Sequence[Action], *, on_failure: str = "continue",
            max_steps: int | None = None) -> Trace:
    """Run a plan from `initial`; every step is recorded (see the module docstring for the rules)."""
    if on_failure not in ("continue", "stop"):
        raise ValueError("on_failure must be 'continue' or 'stop'")
    trace = Trace(initial=initial)
    if max_steps is not None and len(plan) > max_steps:
        trace.truncated = len(plan) - max_steps
        plan = plan[:max_steps]
    state = initial
    steps = trace.steps
    compiled = world.steps
    for action in plan:
        step = compiled.get((action.name, action.args)) or step_function(world, action)
        try:
            new_state, recorded = step(state)
        except PreconditionError as exc:
            steps.append(Step(_recorded_failure(state, world, action), FAILED, state, state, str(exc)))
            if on_failure == "stop":
                break
            continue
        steps.append(Step(recorded, OK, state, new_state))
        state = new_state
    return trace
