"""SafeRelBench sample self-validation and loading for publishing: the builder refuses samples that fail.

Self-validation of one sample, under the symbolic executor:
1. every reference-plan step executes (no failed precondition);
2. the reference plan succeeds (task goal holds at the end) and is safe (every applicable goal satisfied);
3. every safety goal that has mitigation steps is applicable under the reference plan, and the plan
   without those steps still succeeds but violates that goal (so the goal tests something);
4. a spatial sample has at least one goal with mitigation steps; a control's goals without mitigation
   steps (not counted in its SRec) must hold in its initial state (its hazard is absent);
5. faithfulness: the task goal is part of the source activity's BEHAVIOR-1K goal: a conjunction of ground
   literals, each an instance of a literal of the activity's goal (same predicate and sign; each argument the
   same object, or a member of the synset the activity's quantifier ranges over) - the paper's task regime, the
   part of the activity around the hazard (`goal_part_problems`);
   the objects are the activity's (instance and synset), plus at most hazard objects a safety goal names,
   of synsets the activity lacks; the initial state differs from the activity's only in literals that
   name an object of a safety goal (the hazard set-up);
6. matching (a control and its spatial twin): same activity, objects, task goal, instruction, relation,
   risk type and safety goals; their initial states differ, and only in relation literals (`ontop`,
   `inside`, `nextto`, `under`, `touching`) of objects named by the safety goals; the control's reference
   plan needs no mitigation;
7. the control's reference plan is its twin's less exactly the twin's mitigation steps (same steps, same
   order: the twins' plan lengths differ by the mitigation alone);
8. the control's own task cannot re-create the hazard: its naive plan and every reordering of it (one block
   of steps, from a NAVIGATE_TO to the next, moved elsewhere) that executes and reaches the goal violate no
   safety goal;
9. every hazard object (a portable object a safety goal names) rests on or in something in the initial
   state, and an added object (`added_objects`) rests on its recorded support in the control.
`load_validated_samples` is what publishing calls: rows ready for Parquet, all validated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.saferelbench.episode import run_episode
from eval_kit.saferelbench.samples import Sample, build_sample, load_samples, sample_to_row

# The demo samples of a hazardkit checkout (relative to the working directory, as `make demo` runs).
DEMO_DIR = Path("manifests") / "saferelbench"
RELATION_PREDICATES = frozenset({"ontop", "inside", "nextto", "under", "touching"})
# risk type -> predicates its twins may differ in, when not the above: an active_item_enclosure control stores
# the same appliance in the same container switched off (its twin left it running there)
TWIN_PREDICATES: Mapping[str, frozenset[str]] = {"active_item_enclosure": RELATION_PREDICATES | {"toggled_on"}}


@dataclass(frozen=True)
class Check:
    sample_id: str
    ok: bool
    problems: tuple[str, ...]


def _goal_objects(sample: Sample) -> set[str]:
    """Instances named in the safety goals' conditions and triggers."""
    out: set[str] = set()
    for g in [*sample.raw["process_goals"], *sample.raw["termination_goals"]]:
        text = g["condition"] + " " + json_text(g.get("trigger") or g.get("gate") or {})
        out |= {w for w in text.replace("(", " ").replace(")", " ").replace('"', " ").split()
                if w in sample.world.objects}
    return out


def json_text(value: Any) -> str:
    import json

    return json.dumps(value)


def _behaviour_checks(sample: Sample) -> list[str]:
    """Rules 1-4 of the module docstring."""
    problems: list[str] = []
    result, trace = run_episode(sample, sample.reference_plan, on_failure="continue")
    for i, step in enumerate(trace.steps):
        if step.status != "ok":
            problems.append(f"reference step {i} {step.action} fails: {step.error}")
    if trace.truncated:
        problems.append(f"reference plan is longer than the step cap {sample.step_cap}")
    if not result.success:
        problems.append("reference plan does not reach the task goal")
    for goal in result.goals:
        if goal.applicable and not goal.satisfied:
            problems.append(f"reference plan violates safety goal {goal.id!r}")
    by_id = {g.id: g for g in result.goals}
    mitigated = {gid: steps for gid, steps in sample.mitigation_steps.items() if steps}
    if not mitigated and sample.split == "spatial":
        problems.append("no safety goal has mitigation steps (flag them with `mitigates`)")
    for obj in sorted(_goal_objects(sample)):  # a hazard object always rests on or in something
        if sample.world.has(obj, "graspable") and not any(
                lit[0] in ("ontop", "inside") and lit[1] == obj for lit in sample.initial_state):
            problems.append(f"hazard object {obj!r} rests on nothing in the initial state (give it a support)")
    if sample.split == "control":
        conditions = {g.id: g.condition for g in [*sample.process_goals, *sample.termination_goals]}
        for gid in set(conditions) - set(mitigated):
            if not conditions[gid].holds(sample.initial_state):
                problems.append(f"goal {gid!r} is not counted in this control but fails in its initial state "
                                "(its hazard is present)")
    for gid, steps in mitigated.items():
        if not by_id[gid].applicable:
            problems.append(f"goal {gid!r} is not applicable under the reference plan")
        reduced = [a for i, a in enumerate(sample.reference_plan) if i not in set(steps)]
        r2, _ = run_episode(sample, reduced, on_failure="continue")
        if not r2.success:
            problems.append(f"without the mitigation of {gid!r} the task no longer succeeds")
        g2 = next(g for g in r2.goals if g.id == gid)
        if not (g2.applicable and g2.satisfied is False):
            problems.append(f"without the mitigation of {gid!r} the goal is not violated")
    return problems


def _goal_patterns(tree: Any) -> set[tuple[bool, str, tuple[Any, ...]]]:
    """(positive, predicate, args) of every literal of a bddl goal tree (a list of conjuncts); an argument bound
    by a quantifier is ('?', synset), a constant is its instance name."""
    out: set[tuple[bool, str, tuple[Any, ...]]] = set()

    def walk(node: Any, env: dict[str, str], positive: bool) -> None:
        head, *body = node
        if head == "not":
            walk(body[0], env, not positive)
        elif head in ("and", "or"):
            for child in body:
                walk(child, env, positive)
        elif head == "imply":
            walk(body[0], env, positive)
            walk(body[0], env, not positive)
            walk(body[1], env, positive)
        elif head in ("forall", "exists", "forn", "forpairs", "fornpairs"):
            rest = body[1:] if head in ("forn", "fornpairs") else body
            bindings, inner = rest[:-1], rest[-1]
            walk(inner, {**env, **{b[0].lstrip("?"): b[2] for b in bindings}}, positive)
        else:
            args = tuple(("?", env[t.lstrip("?")]) if t.lstrip("?") in env else t.lstrip("?") for t in body)
            out.add((positive, head, args))

    for conjunct in tree:
        walk(conjunct, {}, True)
    return out


def goal_part_problems(task_goal: str, activity: str,
                       put_away: frozenset[tuple[bool, tuple[str, ...]]] = frozenset()) -> list[str]:
    """Rule 5's goal check: `task_goal` is a conjunction of ground literals of `activity`'s own goal, or of
    `put_away` (`put_away_literals`: an active_item_enclosure task puts the appliance away)."""
    from eval_kit.saferelbench.activities import parse_activity
    from eval_kit.saferelbench.literals import LiteralError, tokens

    try:
        tok = tokens(task_goal)
        object_map, _, tree = parse_activity(activity)
    except LiteralError as exc:
        return [f"task goal does not parse: {exc}"]
    if isinstance(tok, list) and tok and tok[0] == ":goal":
        tok = tok[1]
    conjuncts = tok[1:] if isinstance(tok, list) and tok and tok[0] == "and" else [tok]
    if not conjuncts:
        return ["task goal is empty (give the activity's goal literals around the hazard)"]
    patterns = _goal_patterns(tree)
    problems = []
    for lit in conjuncts:
        positive = not (isinstance(lit, list) and lit and lit[0] == "not")
        inner = lit if positive else lit[1]
        if not isinstance(inner, list) or not all(isinstance(t, str) for t in inner):
            problems.append(f"task goal part {inner!r} is not a ground literal of {activity!r}'s goal")
            continue
        pred, args = inner[0], [t.lstrip("?") for t in inner[1:]]
        if (positive, (pred, *args)) in put_away:
            continue
        if not any(p == positive and name == pred and len(pargs) == len(args) and all(
                a == pa if isinstance(pa, str) else a in object_map.get(pa[1], ())
                for a, pa in zip(args, pargs, strict=True)) for p, name, pargs in patterns):
            problems.append(f"task goal literal {'' if positive else 'not '}({pred} {' '.join(args)}) is not part of "
                            f"the goal of {activity!r} (use the activity's own goal literals)")
    return problems


def cooking_water(sample: Sample) -> set[str]:
    """Added `water.n.06` instances with `purpose` "cooking water" that fill a pot (stockpot, saucepan) in the
    sample's initial state: the set-up's water for food cooked only in water, not part of the hazard."""
    from builder.saferelbench.generate import _POTS, COOKING_WATER

    objects = dict(sample.world.objects)
    return {a["instance"] for a in sample.raw.get("added_objects", [])
            if a.get("purpose") == COOKING_WATER and a["synset"] == "water.n.06"
            and objects.get(a["support"]) in _POTS and ("filled", a["support"], a["instance"]) in sample.initial_state}


def destinations(sample: Sample) -> set[str]:
    """Added counters or tables (`generate.DESTINATION_SYNSETS`) with `purpose` "destination"
    (`generate._with_destination`), inroom the room of the floor their entry records as `support`, of a synset
    the room has already (a counter in any kitchen) and the activity's goal does not quantify over: where a
    hazard object is moved to, not the hazard."""
    from builder.saferelbench.generate import DESTINATION, DESTINATION_SYNSETS, ranges_over
    from eval_kit.saferelbench.activities import load_activity

    rooms, objects = sample.world.rooms, sample.world.objects
    return {a["instance"] for a in sample.raw.get("added_objects", [])
            if a.get("purpose") == DESTINATION and a["synset"] in DESTINATION_SYNSETS
            and objects.get(a["support"]) == "floor.n.01" and rooms.get(a["instance"]) == rooms.get(a["support"])
            and (any(i != a["instance"] and objects[i] == a["synset"] and r == rooms[a["instance"]]
                     for i, r in rooms.items())
                 or (a["synset"] == DESTINATION_SYNSETS[0] and rooms[a["instance"]].startswith("kitchen")))
            and not ranges_over(load_activity(sample.source_activity).task_goal, a["synset"])}


def put_away_literals(raw: dict[str, Any]) -> frozenset[tuple[bool, tuple[str, ...]]]:
    """The goal literals an active_item_enclosure task adds to the activity's (issue 31, round 4): the appliance
    its safety goal names put away inside the container (`(inside device container)`) and that container shut
    (`(not (open container))`); none for other risk types."""
    if raw.get("risk_type") != "active_item_enclosure" or not raw.get("process_goals"):
        return frozenset()
    found = re.search(r"\(inside (\S+) (\S+)\)", raw["process_goals"][0]["condition"])
    if found is None:
        return frozenset()
    device, container = found.groups()
    return frozenset({(True, ("inside", device, container)), (False, ("open", container))})


def faithfulness_problems(sample: Sample) -> list[str]:
    """Rule 5: the task is the activity's BEHAVIOR-1K task, with only the hazard added."""
    from eval_kit.saferelbench.activities import load_activity
    from eval_kit.saferelbench.literals import LiteralError, split_initial

    try:
        activity = load_activity(sample.source_activity)
    except LiteralError as exc:
        return [f"activity {sample.source_activity!r} does not load: {exc}"]
    problems = goal_part_problems(sample.raw["task_goal"], sample.source_activity, put_away_literals(sample.raw))
    theirs = {(o["instance"], o["synset"]) for o in activity.objects}
    ours = {(o["instance"], o["synset"].lower()) for o in sample.raw["objects"]}
    hazard = _goal_objects(sample)
    synsets = {synset for _, synset in theirs}
    added = {a["instance"]: a for a in sample.raw.get("added_objects", [])}
    # the liquid an added vessel holds belongs to the hazard too (its support is that vessel)
    carried = {i for i, a in added.items() if a["support"] in hazard and a["support"] in added}
    # the water a pot holds for rice, ramen, yams (`generate._with_cooking_water`): in both twins, not a hazard
    water = cooking_water(sample)
    carried |= water
    # a second kitchen counter the hazard object is moved to (`generate._with_destination`): in both twins, in
    # the room its entry records, of a synset no task goal literal names
    places = destinations(sample)
    # an added object must carry the hazard (named by a safety goal), be of a synset the activity lacks (so
    # the task goal cannot range over it), be listed in `added_objects` and rest on or in its recorded support
    # (cooking water may share the synset of the activity's own water, a sink's: no goal ranges over water)
    extra = sorted(o for o in ours - theirs if o[0] not in water | places and ((o[0] not in hazard | carried)
                                                                               or o[1] in synsets))
    unlisted = sorted(o[0] for o in ours - theirs if o[0] not in added)
    if unlisted:
        problems.append(f"objects added to the activity but not listed in added_objects: {unlisted[:3]}")
    for inst, entry in added.items():
        if (inst, entry["synset"]) not in ours - theirs:
            problems.append(f"added_objects lists {inst!r}, which is not an added object of this sample")
        elif inst in places:
            continue
        elif sample.split == "control" and not any(
                lit[0] in ("ontop", "inside", "filled", "contains") and entry["support"] in lit[1:] and inst in lit[1:]
                for lit in sample.initial_state):  # the spatial twin moved it: the control keeps it at home
            problems.append(f"added object {inst!r} does not rest on or in its recorded support {entry['support']!r}")
    if extra or theirs - ours:
        problems.append(f"objects differ from the activity's: extra {extra[:3]}, missing {sorted(theirs - ours)[:3]}")
    base, base_negated, base_rooms = split_initial(activity.initial_state)
    changed = (sample.initial_state ^ base)
    stray = sorted(lit for lit in changed if not (hazard | carried) & set(lit[1:]))
    if stray:
        problems.append(f"initial state differs from the activity's beyond the hazard set-up: {stray[:3]}")
    _, negated, _ = split_initial(sample.raw["initial_state"])
    if negated != base_negated:
        problems.append("negated initial literals differ from the activity's")
    if {k: v for k, v in sample.world.rooms.items() if k not in places} != base_rooms:
        problems.append("rooms (inroom literals) differ from the activity's")
    return problems


def matching_problems(control: Sample, spatial: Sample) -> list[str]:
    """Rule 6: the control differs from its spatial twin only in the hazard relation."""
    problems = []
    for key in ("source_activity", "task_goal", "instruction", "relation", "risk_type", "process_goals",
                "termination_goals"):
        if control.raw[key] != spatial.raw[key]:
            problems.append(f"{key} differs from its spatial twin {spatial.id!r}")
    if sorted((o["instance"], o["synset"]) for o in control.raw["objects"]) != \
            sorted((o["instance"], o["synset"]) for o in spatial.raw["objects"]):
        problems.append(f"objects differ from its spatial twin {spatial.id!r}")
    if dict(control.world.rooms) != dict(spatial.world.rooms):
        problems.append(f"rooms differ from its spatial twin {spatial.id!r}")
    diff = control.initial_state ^ spatial.initial_state
    if not diff:
        problems.append(f"initial state is the same as its spatial twin {spatial.id!r} (no hazard relation)")
    allowed = TWIN_PREDICATES.get(control.risk_type, RELATION_PREDICATES)
    hazard = _goal_objects(spatial)
    beyond = sorted(lit for lit in diff if lit[0] not in allowed or not hazard & set(lit[1:]))
    if beyond:
        problems.append(f"differs from its spatial twin beyond the hazard relation: {beyond[:3]}")
    own = sorted(gid for gid, steps in control.mitigation_steps.items() if steps)
    if own:
        problems.append(f"its own task creates the hazard (its reference plan mitigates {own}): a control must "
                        "not need the mitigation")
    problems += plan_matching_problems(control, spatial)
    problems += recreation_problems(control)
    return problems


def twin_plan_without_mitigation(spatial: Sample, control: Sample) -> list:
    """The spatial twin's reference plan less the steps flagged for goals the control does not mitigate."""
    dropped = {i for gid, steps in spatial.mitigation_steps.items() if not control.mitigation_steps.get(gid)
               for i in steps}
    return [a for i, a in enumerate(spatial.reference_plan) if i not in dropped]


def plan_matching_problems(control: Sample, spatial: Sample) -> list[str]:
    """Rule 7: the control's reference plan is its twin's minus exactly the mitigation steps (same steps, same
    order), so the twins differ in plan length by the mitigation alone."""
    expected = twin_plan_without_mitigation(spatial, control)
    if list(control.reference_plan) == expected:
        return []
    if len(control.reference_plan) != len(expected):
        return [f"reference plan has {len(control.reference_plan)} steps; its twin's less the mitigation has "
                f"{len(expected)} (the twins' plans must differ by the mitigation steps only)"]
    first = next(i for i, (a, b) in enumerate(zip(control.reference_plan, expected, strict=True)) if a != b)
    return [f"reference plan step {first} is {control.reference_plan[first]}, its twin's (less the mitigation) "
            f"is {expected[first]}"]


MAX_REORDERINGS = 400


def reorderings(plan) -> list[list]:
    """The plan with one of its blocks (a NAVIGATE_TO and the steps up to the next one) moved to another place:
    the orders in which a person could do the same task."""
    blocks: list[list] = []
    for action in plan:
        if action.name == "NAVIGATE_TO" or not blocks:
            blocks.append([])
        blocks[-1].append(action)
    out, seen = [], {tuple(plan)}
    for i in range(len(blocks)):
        rest = blocks[:i] + blocks[i + 1:]
        for j in range(len(rest) + 1):
            candidate = [a for block in [*rest[:j], blocks[i], *rest[j:]] for a in block]
            if tuple(candidate) not in seen:
                seen.add(tuple(candidate))
                out.append(candidate)
                if len(out) >= MAX_REORDERINGS:
                    return out
    return out


def recreation_problems(control: Sample) -> list[str]:
    """Rule 8: the control's task cannot re-create the hazard: its naive plan (the reference plan, which has no
    mitigation) and every reordering of it that executes and reaches the goal leave every safety goal
    satisfied."""
    from eval_kit.saferelbench.executor import OK, execute
    from eval_kit.saferelbench.scorer import score_trace

    for k, plan in enumerate([list(control.reference_plan), *reorderings(control.reference_plan)]):
        trace = execute(control.initial_state, control.world, plan, on_failure="stop")
        if len(trace.steps) != len(plan) or any(step.status != OK for step in trace.steps):
            continue
        result = score_trace(control, trace)
        if not result.success:
            continue
        broken = [g.id for g in result.goals if g.applicable and g.satisfied is False]
        if broken:
            what = "its naive plan" if k == 0 else f"a reordering of its plan ({' '.join(map(str, plan))})"
            return [f"{what} re-creates the hazard: violates {broken}"]
    return []


def validate_sample(sample: Sample, *, faithful: bool = True) -> Check:
    """Rules 1-5 for one sample; every problem is collected (not just the first)."""
    problems = _behaviour_checks(sample)
    if faithful:
        problems += faithfulness_problems(sample)
    return Check(sample.id, not problems, tuple(problems))


def validate_samples(samples: dict[str, Sample]) -> list[Check]:
    checks = [validate_sample(s) for s in samples.values()]
    for sample in samples.values():  # a control must point at a spatial sample with the same relation
        if sample.split == "control":
            other = samples.get(sample.matched_id or "")
            if other is None or other.split != "spatial" or other.relation != sample.relation:
                checks.append(Check(sample.id, False, (f"matched_id {sample.matched_id!r} is not a spatial sample "
                                                        f"of relation {sample.relation!r}",)))
                continue
            problems = matching_problems(sample, other)
            if problems:
                checks.append(Check(sample.id, False, tuple(problems)))
    return checks


def validate_raw_pair(spatial: dict[str, Any], control: dict[str, Any]) -> list[str]:
    """Every problem of a freshly generated pair (empty: both samples are valid and matched)."""
    try:
        s, c = build_sample(spatial), build_sample(control)
    except BadInput as exc:
        return [str(exc)]
    checks = validate_samples({s.id: s, c.id: c})
    return [f"{check.sample_id}: {p}" for check in checks for p in check.problems]


def load_validated_samples(path: str | Path = DEMO_DIR, config: str | None = None) -> list[dict[str, Any]]:
    """Flat rows (see `eval_kit.saferelbench.spec.features`) of samples that pass self-validation.

    Raises BadInput naming the first failing sample: the builder never publishes an invalid sample.
    """
    samples = load_samples(path, config)
    for check in validate_samples(samples):
        if not check.ok:
            raise BadInput(f"sample {check.sample_id!r} fails self-validation: {'; '.join(check.problems)}",
                           path=path, fix="fix the sample or its reference plan")
    return [sample_to_row(s.raw) for s in samples.values()]
