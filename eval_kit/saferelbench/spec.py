"""SafeRelBench in code: relations, risk types, action primitives, prompt variants, row features.

The source is the SafeRelBench paper (see `CITATION`): an embodied agent receives a BEHAVIOR-1K household
task whose safe execution depends on a spatial relation (supporting, containment, proximity), writes an
action plan, and is scored for task success (SR), joint task + safety success (SSR) and safety recall on
successful tasks (SRec). Matched non-spatial controls share the task but not the relational hazard.

Everything that defines the benchmark's vocabulary lives here; the machinery (goal compilation, the
symbolic executor, the trace scorer, prompts, the plan parser) lives in `eval_kit.saferelbench`.
"""

from __future__ import annotations

# The one citation of this benchmark: the `evaluate` module and the dataset card both use it.
CITATION = """@misc{saferelbench,
  title  = {SafeRelBench: A Spatial-Relation-Aware Benchmark for Process-Level Safety in VLM-Driven Embodied Agents},
  note   = {arXiv, 2026; see the paper for the author list},
}"""

NAME = "saferelbench"

RELATIONS: tuple[str, ...] = ("supporting", "containment", "proximity")
SPLITS: tuple[str, ...] = ("spatial", "control")

# Nine relation-specific risk types, three per relation. Each is documented in saferelbench/README.md.
RISK_TYPES_BY_RELATION: dict[str, tuple[str, ...]] = {
    # an object rests on another: acting on the support first makes the load fall, burn or spill
    "supporting": ("support_removal", "heated_support", "loaded_lid_opening"),
    # an object is inside another: the container's state or contents make an action on it hazardous
    "containment": ("unsafe_contents_activation", "utensil_inside_activation", "active_item_enclosure"),
    # an object is next to another: activating or opening one endangers its neighbour
    "proximity": ("flammable_near_heat", "liquid_near_electronics", "chemical_near_food"),
}
RISK_TYPES: tuple[str, ...] = tuple(r for group in RISK_TYPES_BY_RELATION.values() for r in group)
RELATION_OF_RISK: dict[str, str] = {r: rel for rel, group in RISK_TYPES_BY_RELATION.items() for r in group}
RISK_DESCRIPTIONS: dict[str, str] = {
    "support_removal": "grasping or moving an object while something still rests on top of it",
    "heated_support": "a flammable item on a stove or grill that is switched on",
    "loaded_lid_opening": "opening a container, lid or door while an object rests on top of it",
    "unsafe_contents_activation": "switching on an oven with something flammable inside it",
    "utensil_inside_activation": "switching on a blender or food processor with a utensil (a spoon, a knife) inside it",
    "active_item_enclosure": "closing a container on an item inside it that is still switched on",
    "flammable_near_heat": "switching on a heat source while something flammable it can ignite is next to it",
    "liquid_near_electronics": "switching on an electric appliance while a container of liquid is next to it",
    "chemical_near_food": "using a cleaning chemical while food is next to its container",
}

# OmniGibson's semantic action primitives (StarterSemanticActionPrimitiveSet) plus PLACE_NEXT_TO for proximity,
# then the primitives BEHAVIOR-1K's goals need (IS-Bench has WIPE, CUT, FILL, POUR, WAIT_FOR_COOKED): their
# preconditions and effects follow bddl's synset properties and transition rules (eval_kit.saferelbench.knowledge).
BASE_ACTIONS: tuple[str, ...] = (
    "NAVIGATE_TO", "GRASP", "RELEASE", "PLACE_ON_TOP", "PLACE_INSIDE", "PLACE_NEXT_TO",
    "OPEN", "CLOSE", "TOGGLE_ON", "TOGGLE_OFF",
)
EXTRA_ACTIONS: tuple[str, ...] = (
    "PLACE_UNDER", "PLACE_OVER", "DRAPE", "ATTACH", "DETACH", "WIPE", "CUT", "DICE", "COOK", "FREEZE",
    "FILL", "POUR", "APPLY", "SOAK", "MIX", "FOLD", "UNFOLD",
)
ACTIONS: tuple[str, ...] = BASE_ACTIONS + EXTRA_ACTIONS
# Actions on the held object relative to a target: written (held, target), or (target) with the held object implied.
HELD_TARGET_ACTIONS: frozenset[str] = frozenset({
    "PLACE_ON_TOP", "PLACE_INSIDE", "PLACE_NEXT_TO", "PLACE_UNDER", "PLACE_OVER", "DRAPE", "ATTACH", "FILL",
    "POUR", "APPLY", "SOAK",
})
PLACE_ACTIONS: frozenset[str] = HELD_TARGET_ACTIONS

# Object abilities the executor's preconditions read: OmniGibson's object abilities, derived for real activities
# from bddl's synset properties (eval_kit.saferelbench.knowledge.ABILITY_OF_PROPERTY).
ABILITIES: tuple[str, ...] = (
    "graspable", "openable", "toggleable", "container", "fillable", "heat_source", "cold_source", "cookable",
    "heatable", "freezable", "sliceable", "diceable", "slicer", "cleaning_tool", "particle_source",
    "particle_applier", "foldable", "drapeable", "attachable", "flammable", "mixing_tool", "substance", "liquid",
    "meltable", "breakable", "particle_sink",
)

# Prompt variants (paper: BASE, RISK-AWARE, ACTION-GROUNDED), snake_case in files.
VARIANTS: tuple[str, ...] = ("base", "risk_aware", "action_grounded")
VARIANT_ALIASES: dict[str, str] = {
    "base": "base", "risk_aware": "risk_aware", "riskaware": "risk_aware",
    "action_grounded": "action_grounded", "actiongrounded": "action_grounded",
}

# where a sample's hazard object comes from: the activity's own objects, or added to its scene
HAZARD_OBJECT_SOURCES: tuple[str, ...] = ("activity", "added")

GATES: tuple[str, ...] = ("always", "on_completion", "after_trigger")

AGENT_SYNSET = "agent.n.01"
FLOOR_SYNSET = "floor.n.01"


def normalise_variant(value: str) -> str | None:
    """'RISK-AWARE', 'risk aware', 'risk_aware' -> 'risk_aware'; None when it is not a variant."""
    key = "".join(ch for ch in str(value).lower() if ch.isalnum() or ch == "_").replace("_", "")
    for alias, canonical in VARIANT_ALIASES.items():
        if alias.replace("_", "") == key:
            return canonical
    return None


def features():
    """The `datasets.Features` of one SafeRelBench row (lazy import: scoring does not need datasets).

    Nested structures (objects, goals, plans) are stored as JSON strings so the Parquet stays flat and the
    loader (`eval_kit.saferelbench.samples.sample_from_row`) restores them exactly.
    """
    import datasets

    return datasets.Features(
        {
            "id": datasets.Value("string"),
            "source_activity": datasets.Value("string"),
            "split": datasets.ClassLabel(names=list(SPLITS)),
            "matched_id": datasets.Value("string"),
            "relation": datasets.ClassLabel(names=list(RELATIONS)),
            "risk_type": datasets.ClassLabel(names=list(RISK_TYPES)),
            "instruction": datasets.Value("string"),
            "task_goal": datasets.Value("string"),
            "objects": datasets.Value("string"),
            "initial_state": datasets.Sequence(datasets.Value("string")),
            "process_goals": datasets.Value("string"),
            "termination_goals": datasets.Value("string"),
            "reference_plan": datasets.Value("string"),
            # hazard objects added to the activity's scene ([] when the hazard object is the activity's own)
            "added_objects": datasets.Value("string"),
            "hazard_object": datasets.ClassLabel(names=list(HAZARD_OBJECT_SOURCES)),
            # one sentence on what makes the hazard physically dangerous (None for hand-written samples without one)
            "hazard_reason": datasets.Value("string"),
            # derived from the nested fields, for the card's statistics (dropped when a row is read back)
            "plan_steps": datasets.Value("int32"),
            "place_on_top_steps": datasets.Value("int32"),
            "termination_goal_count": datasets.Value("int32"),
        }
    )
