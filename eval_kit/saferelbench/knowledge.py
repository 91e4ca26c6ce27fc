"""BEHAVIOR-1K's object knowledge, read from the data bddl ships in `bddl/generated_data/`.

Why: the executor's preconditions and effects for cleaning, cutting, cooking, filling, soaking and the
machine transitions must follow BEHAVIOR's own annotations, not hand lists. This module turns them into
what the executor reads:

- `abilities(synset)`: our ability names derived from a synset's properties in
  `propagated_annots_params.json` (see `ABILITY_OF_PROPERTY`); `graspable` is a non-substance that is not a
  scene object (furniture, appliances, floors), `container` is `fillable` or
  `openable`;
- `remover_condition(tool_synset, substance_synset)`: whether a particleRemover (rag, brush, vacuum...) removes
  a substance and under which condition (e.g. mud needs the rag `saturated` with water; rust cannot be removed);
- `source_substances(synset)`: the substances a particleSource / particleApplier emits and its conditions;
- `derivative(synset, kind)`: `sliceable_derivative_synset`, `diceable_derivative_synset`,
  `substance_cooking_derivative_synset` (apple -> half__apple, water -> cooked__water);
- `rules(kind)`: BEHAVIOR's transition rules (`transition_map/tm_jsons/*.json`): heat_cook, mixing_stick,
  single_toggleable_machine, melting, substance_cooking, slicing, dicing; `washer_rules()` for washers.

Everything is loaded once and cached; a synset bddl does not annotate has no abilities.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

# bddl property -> our ability name (the executor's vocabulary; listed in spec.ABILITIES)
ABILITY_OF_PROPERTY: dict[str, str] = {
    "openable": "openable", "toggleable": "toggleable", "fillable": "fillable", "heatSource": "heat_source",
    "coldSource": "cold_source", "cookable": "cookable", "heatable": "heatable", "freezable": "freezable",
    "sliceable": "sliceable", "diceable": "diceable", "slicer": "slicer", "particleRemover": "cleaning_tool",
    "particleSource": "particle_source", "particleApplier": "particle_applier", "cloth": "foldable",
    "drapeable": "drapeable", "attachable": "attachable", "flammable": "flammable", "mixingTool": "mixing_tool",
    "substance": "substance", "liquid": "liquid", "meltable": "meltable", "breakable": "breakable",
    "particleSink": "particle_sink",
}


def _data_dir() -> Path:
    from importlib.resources import files

    return Path(str(files("bddl") / "generated_data"))


@cache
def _params() -> dict[str, dict[str, Any]]:
    return json.loads((_data_dir() / "propagated_annots_params.json").read_text())


def properties(synset: str) -> dict[str, Any]:
    """bddl's annotated properties of a synset (name -> parameters); {} when bddl does not know it."""
    return _params().get(synset, {})


@cache
def abilities(synset: str) -> frozenset[str]:
    """Our ability names for a synset, derived from bddl's properties (see the module docstring)."""
    props = properties(synset)
    out = {ABILITY_OF_PROPERTY[p] for p in props if p in ABILITY_OF_PROPERTY}
    if "nonSubstance" in props and "sceneObject" not in props and synset != "agent.n.01":
        out.add("graspable")
    if "fillable" in props or "openable" in props:
        out.add("container")
    if "diceable" not in props and "sliceable" in props and derivative(synset, "dice"):
        out.add("diceable")
    return frozenset(out)


def activity_abilities(synset: str, *, in_room: bool, holds_things: bool) -> frozenset[str]:
    """A synset's abilities in one activity: a scene object the activity does not fix in a room (`inroom`)
    is sampled onto something and can be moved (graspable); an object the activity puts things `inside`
    (in its initial state or goal) is a container there."""
    out = set(abilities(synset))
    props = properties(synset)
    if "sceneObject" in props and not in_room and "nonSubstance" in props and synset != "agent.n.01":
        out.add("graspable")
    if holds_things and "substance" not in props:
        out.add("container")
    return frozenset(out)


@cache
def is_substance(synset: str) -> bool:
    return "substance" in properties(synset)


def heat_params(synset: str) -> dict[str, Any] | None:
    return properties(synset).get("heatSource")


def cold_params(synset: str) -> dict[str, Any] | None:
    return properties(synset).get("coldSource")


@cache
def remover_condition(tool: str, substance: str) -> list | None:
    """The conditions under which particleRemover `tool` removes `substance` ([] = none; None = it cannot).

    A substance the tool does not list falls back on its default conditions for that kind of substance
    (`default_fluid_conditions` for liquids, `default_visual_conditions` for visual ones like dust or
    stains, `default_non_fluid_conditions` otherwise), as OmniGibson's ParticleRemover does.
    """
    params = properties(tool).get("particleRemover")
    if params is None:
        return None
    listed = params.get("conditions") or {}
    if substance in listed:
        return listed[substance]
    props = properties(substance)
    key = ("default_fluid_conditions" if "liquid" in props else
           "default_visual_conditions" if "visualSubstance" in props else "default_non_fluid_conditions")
    return params.get(key)


@cache
def source_substances(synset: str) -> dict[str, list]:
    """substance -> conditions for a particleSource or particleApplier (e.g. a sink emits water when on)."""
    out: dict[str, list] = {}
    for key in ("particleSource", "particleApplier"):
        params = properties(synset).get(key) or {}
        for substance, conditions in (params.get("conditions") or {}).items():
            out[substance] = list(conditions or [])
    return out


def conditions_met(conditions: list | None, holds) -> bool:
    """bddl's particle conditions on a tool or source: `saturated` entries are alternatives (the rag soaked in
    any one of the cleaning liquids), other predicates (`toggled_on`) are all required; `gravity` is physics
    and always holds here. `holds(predicate, substance_synset_or_value)` reads the state."""
    if conditions is None:
        return False
    saturated = [c for c in conditions if c and c[0] == "saturated"]
    if saturated and not any(holds("saturated", c[1]) for c in saturated):
        return False
    return all(holds(c[0], c[1]) for c in conditions if c and c[0] not in ("saturated", "gravity"))


_DERIVATIVE_KEY = {"slice": ("sliceable", "sliceable_derivative_synset"),
                   "dice": ("diceable", "uncooked_diceable_derivative_synset"),
                   "dice_cooked": ("diceable", "cooked_diceable_derivative_synset"),
                   "cook": ("cookable", "substance_cooking_derivative_synset")}


def derivative(synset: str, kind: str) -> str | None:
    """What slicing / dicing / cooking (a substance) turns `synset` into, per bddl; None when nothing."""
    prop, key = _DERIVATIVE_KEY[kind]
    params = properties(synset).get(prop) or {}
    found = params.get(key)
    if found is None and kind in ("dice", "dice_cooked"):  # a whole dices through its halves (apple -> half)
        half = derivative(synset, "slice")
        found = derivative(half, kind) if half else None
    return found


@dataclass(frozen=True)
class Rule:
    """One BEHAVIOR transition rule: inputs (synset -> count) become outputs, possibly in a container,
    on a heat source or in a machine (each a set of accepted synsets; empty = any)."""

    kind: str
    name: str
    inputs: tuple[tuple[str, int], ...]
    outputs: tuple[tuple[str, int], ...]
    containers: frozenset[str] = frozenset()
    heat_sources: frozenset[str] = frozenset()
    machines: frozenset[str] = frozenset()
    # ((synsets, predicate, value), ...): "a" -> ((a,), "cooked", False); "a,b" -> ((a, b), "ontop", True)
    input_states: tuple[tuple[tuple[str, ...], str, bool], ...] = ()
    output_states: tuple[tuple[str, str, bool], ...] = ()
    needs: frozenset[str] = frozenset()  # the input synsets, as a set (a fast subset test on a container)

    def __post_init__(self) -> None:
        object.__setattr__(self, "needs", frozenset(s for s, _ in self.inputs))


def _states(raw: dict | None) -> tuple[tuple[tuple[str, ...], str, bool], ...]:
    out = []
    for key, entries in sorted((raw or {}).items()):
        for predicate, value in entries or ():
            out.append((tuple(key.split(",")), str(predicate), bool(value)))
    return tuple(out)


RULE_KINDS = ("heat_cook", "mixing_stick", "single_toggleable_machine", "melting", "substance_cooking",
              "substance_watercooking", "slicing", "dicing")


@cache
def rules(kind: str) -> tuple[Rule, ...]:
    """BEHAVIOR's transition rules of one kind, from bddl's transition map."""
    raw = json.loads((_data_dir() / "transition_map" / "tm_jsons" / f"{kind}.json").read_text())
    out = []
    for r in raw:
        out.append(Rule(
            kind, r.get("rule_name", ""), tuple(sorted((r.get("input_synsets") or {}).items())),
            tuple(sorted((r.get("output_synsets") or {}).items())),
            frozenset(r.get("container") or ()), frozenset(r.get("heat_source") or ()),
            frozenset(r.get("machine") or ()), _states(r.get("input_states")),
            tuple((syns[0], pred, value) for syns, pred, value in _states(r.get("output_states")))))
    return tuple(out)


WATER, BOILING_WATER = "water.n.06", "cooked__water.n.01"


@cache
def slice_count(synset: str) -> int:
    """How many pieces one cut of `synset` makes: the output count of bddl's slicing rule (2 for every rule
    bddl 3.6.0 ships); 1 when no rule names the synset (its derivative comes from the property alone)."""
    for rule in rules("slicing"):
        if rule.inputs and rule.inputs[0][0] == synset and rule.outputs:
            return int(rule.outputs[0][1])
    return 1


@cache
def substance_cooking_rules(synset: str) -> tuple[Rule, ...]:
    """How heat turns substance `synset` into its cooked form, per bddl: its `substance_watercooking` rules
    when it has any (brown rice needs boiling water: inputs brown_rice + cooked__water), else its
    `substance_cooking` rule (water -> cooked__water, white_rice -> cooked__white_rice)."""
    water = tuple(r for r in rules("substance_watercooking") if any(s == synset for s, _ in r.inputs))
    if water:
        return water
    return tuple(r for r in rules("substance_cooking") if any(s == synset for s, _ in r.inputs))


def holds_bulk(container: str, substance: str) -> bool:
    """Whether a substance can be taken (FILL / SOAK) out of `container` because it holds it, per bddl's
    properties: a fillable non-scene object (a bowl, a pot, a sack) holds any substance; a fillable scene
    object (sink, bathtub, pool, but also oven, fridge, cabinet, microwave) only a liquid, which can be
    scooped out of it; solid food lying in an oven, a fridge or a sink is not a source to fill from."""
    props = properties(container)
    if "fillable" not in props:
        return False
    return "sceneObject" not in props or "liquid" in properties(substance)


@cache
def cookware() -> frozenset[str]:
    """The containers bddl's heat_cook rules cook in (stockpot, saucepan, frying pan, cookie sheet...)."""
    return frozenset(c for r in rules("heat_cook") for c in r.containers)


@cache
def producers() -> dict[str, tuple[Rule, ...]]:
    """output synset -> the rules that produce it (all kinds)."""
    out: dict[str, list[Rule]] = {}
    for kind in RULE_KINDS:
        for rule in rules(kind):
            for synset, _ in rule.outputs:
                out.setdefault(synset, []).append(rule)
    return {k: tuple(v) for k, v in out.items()}


@cache
def washer_rules() -> dict[str, list[str]]:
    """substance -> cleaning substances one of which a washer must contain to remove it ([] = water alone)."""
    return json.loads((_data_dir() / "transition_map" / "tm_jsons" / "washer.json").read_text())


WASHER_SYNSETS = frozenset({"washer.n.03", "dishwasher.n.01"})
# Open cooktops (bddl heatSource with requires_inside 0) whose burners are not a cooking surface: food cooks on
# them only in cookware (a pan, a pot). A grill or a griddle is a cooking surface and is not listed. Reviewed by
# hand against bddl 3.6.0's heat sources (stove.n.01 is the only cooktop among them).
BARE_BURNERS = frozenset({"stove.n.01"})
# Cookware that stands on a burner: bddl's heat_cook containers that go on a stove (frying pan, saucepan, saucepot,
# stockpot) and their kin among bddl 3.6.0's synsets (WordNet's cooking pot and pan, wok, griddle, copper pot);
# an oven's cookie sheet or casserole, a freezer's ice tray or a kettle (water, not food) is not among them.
STOVETOP_COOKWARE = frozenset({"frying_pan.n.01", "saucepan.n.01", "saucepot.n.01", "stockpot.n.01", "pot.n.01",
                               "pan.n.01", "wok.n.01", "griddle.n.01", "copper_pot.n.01"})


@cache
def rules_for(kind: str, synset: str) -> tuple[Rule, ...]:
    """The rules of one kind that can fire in / with `synset` (as machine, or as container when the rule
    names containers; rules that name neither fire anywhere): lets the executor skip the rest."""
    out = []
    for rule in rules(kind):
        if rule.machines:
            if synset in rule.machines:
                out.append(rule)
        elif not rule.containers or synset in rule.containers:
            out.append(rule)
    return tuple(out)


@cache
def _taxonomy():
    from bddl.object_taxonomy import ObjectTaxonomy

    return ObjectTaxonomy()


# Under food in bddl's taxonomy but not eaten by people: a potted plant (`pottable__chili`: a chili plant in a
# pot, review of issue 31) and animal feed (hay, bird feed, pet food: `feed.n.01`'s lineage).
_NOT_FOOD_PREFIXES = ("pottable",)
_NOT_FOOD_ANCESTORS = frozenset({"feed.n.01"})


@cache
def is_food(synset: str) -> bool:
    """Whether the synset is food people eat: bddl's WordNet taxonomy puts it under food (food.n.01 / food.n.02 /
    foodstuff.n.02), and it is neither a plant (`pottable__*`) nor animal feed (under `feed.n.01`)."""
    try:
        lineage = [synset, *_taxonomy().get_ancestors(synset)]
    except Exception:  # a synset the taxonomy does not know
        return False
    if synset.startswith(_NOT_FOOD_PREFIXES) or _NOT_FOOD_ANCESTORS & set(lineage):
        return False
    return any(name.split(".")[0] in ("food", "foodstuff") for name in lineage)
