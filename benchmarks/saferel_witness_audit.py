"""Replay every BEHAVIOR-1K witness plan and report each step that bddl's own annotations contradict.

    .venv/bin/python benchmarks/saferel_witness_audit.py [--quick] [--show N] [--json]

Why: a witness plan is the executor's claim that an activity's goal is reachable by physically sensible
steps. This audit does not trust the executor: it re-reads every executed step's before / after states and
checks them against bddl's data directly (`bddl/generated_data`: synset properties and transition rules):

- heat:        COOK(x) needs x (or its container) on / in a heat source whose `heatSource` annotation holds in
               the before-state: `requires_toggled_on` -> on, `requires_closed` -> door shut, `requires_inside`
               -> inside, not on top;
- enclosure:   no step other than NAVIGATE_TO / RELEASE / COOK / FREEZE acts on an object (or a held-target
               action's target) inside a closed openable container;
- cut:         CUT(x) makes at most as many new pieces as bddl's slicing rule outputs for x's synset, and
               leaves every other object of the activity as it was;
- fill:        every substance FILL / SOAK gives the held object comes from the target as bddl allows: a
               particleSource / particleApplier of it (conditions met), an `insource`, or a container of it
               (a fillable non-scene object, or a scene object holding a liquid);
- burner:      no COOK cooks a food item lying directly on a stove's burner (`knowledge.BARE_BURNERS`): food
               is cooked in cookware that stands on it;
- lid:         no TOGGLE_ON switches on an openable machine (a bddl single_toggleable_machine: a blender) whose lid
               is open;
- cycle:       no step makes a cycle of `ontop` / `inside` (the board on the bowl on the board);
- garbage:     a machine makes a recipe's output only when every object inside it is an input of such a recipe
               (OmniGibson turns a recipe with a non-recipe object inside into garbage);
- enclosure also follows what an object rests on: an apple on a plate inside a closed fridge is shut in;
- transitions: every object or substance a step makes real is an output of a bddl rule (or the cut / dice /
               cooking derivative of an input) whose input synsets were present, and a substance cooked by a
               `substance_watercooking` rule had boiling water (cooked__water) with it.

Prints each contradicted step (activity, step number, step, rule) up to --show, the count of contradicted
steps and plans, and reachability over all activities (target: 0 contradicted; reachable >= 75% of 1,016).
`--quick` audits the first 60 activities (a few seconds).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NO_CONTACT = frozenset({"NAVIGATE_TO", "RELEASE", "COOK", "FREEZE"})


def _params(synset: str, key: str) -> dict | None:
    from eval_kit.saferelbench import knowledge

    return knowledge.properties(synset).get(key)


def _closed_around(state, objects, obj: str) -> str | None:
    """A closed openable container obj is inside, or that holds what obj rests on, transitively (an apple on a
    plate in a shut fridge); standing on top of a closed container is not being in it."""
    from eval_kit.saferelbench import knowledge

    frontier, seen = [obj], set()
    while frontier:
        current = frontier.pop()
        seen.add(current)
        for lit in state:
            if lit[0] in ("inside", "ontop") and lit[1] == current:
                container = lit[2]
                if lit[0] == "inside" and "openable" in knowledge.properties(objects.get(container, "")) \
                        and ("open", container) not in state:
                    return container
                if container not in seen:
                    frontier.append(container)
    return None


def _cycle(state) -> list[str] | None:
    """A cycle of `ontop` / `inside` relations (the board on the bowl on the board), or None."""
    rests: dict[str, set[str]] = {}
    for lit in state:
        if lit[0] in ("ontop", "inside") and len(lit) == 3:
            rests.setdefault(lit[1], set()).add(lit[2])
    for start in sorted(rests):
        path, frontier = {start: [start]}, [start]
        while frontier:
            current = frontier.pop()
            for nxt in sorted(rests.get(current, ())):
                if nxt == start:
                    return [*path[current], start]
                if nxt not in path:
                    path[nxt] = [*path[current], nxt]
                    frontier.append(nxt)
    return None


def _machine_synsets() -> frozenset[str]:
    from eval_kit.saferelbench import knowledge

    return frozenset(m for r in knowledge.rules("single_toggleable_machine") for m in r.machines)


def _heat_ok(state, objects, obj: str) -> str | None:
    """None when some heat source heats obj as bddl annotates it, else what is wrong."""
    holders = [obj, *sorted(lit[2] for lit in state if lit[0] in ("ontop", "inside") and lit[1] == obj)]
    problems = []
    for item in holders:
        for lit in sorted(state):
            if lit[0] not in ("ontop", "inside") or lit[1] != item:
                continue
            source = lit[2]
            params = _params(objects.get(source, ""), "heatSource")
            if params is None:
                continue
            why = _source_problem(state, objects, source, params, item)
            if why is None:
                return None
            problems.append(why)
    params = _params(objects.get(obj, ""), "heatSource")
    if params is not None and ("toggled_on", obj) in state:
        why = _source_problem(state, objects, obj, params, None)
        if why is None:
            return None
        problems.append(why)
    return "; ".join(problems) or "not on or in a heat source"


def _source_problem(state, objects, source: str, params: dict, item: str | None) -> str | None:
    from eval_kit.saferelbench import knowledge

    props = knowledge.properties(objects.get(source, ""))
    needs_on = params.get("requires_toggled_on", 1.0 if not params else 0.0)
    if needs_on and "toggleable" in props and ("toggled_on", source) not in state:
        return f"{source} requires_toggled_on but is off"
    if params.get("requires_closed") and ("open", source) in state:
        return f"{source} requires_closed but its door is open"
    if item is not None and params.get("requires_inside") and ("inside", item, source) not in state:
        return f"{source} requires_inside but {item} is on it, not in it"
    return None


def _container_of(state, objects, holder: str, substance: str) -> bool:
    from eval_kit.saferelbench import knowledge

    props = knowledge.properties(objects.get(holder, ""))
    return "fillable" in props and ("sceneObject" not in props
                                    or "liquid" in knowledge.properties(objects.get(substance, "")))


def _source_gives(state, objects, source: str, substance: str) -> bool:
    from eval_kit.saferelbench import knowledge

    synset = objects.get(substance, "")
    emits = knowledge.source_substances(objects.get(source, ""))

    def holds(predicate, value):
        if predicate == "toggled_on":
            return (("toggled_on", source) in state) == bool(value) or \
                "toggleable" not in knowledge.properties(objects.get(source, ""))
        if predicate == "saturated":
            return any(lit[0] == "saturated" and lit[1] == source and objects.get(lit[2]) == value for lit in state)
        return True

    if synset in emits and knowledge.conditions_met(emits[synset], holds):
        return True
    if ("insource", source, substance) in state:
        return knowledge.conditions_met(emits.get(synset, []), holds)
    held = ("filled", source, substance) in state or ("contains", source, substance) in state
    return held and _container_of(state, objects, source, substance)


def _real(state, inst: str) -> bool:
    return ("future", inst) not in state and any(inst in lit[1:] for lit in state)


def _explained(before, after, objects, step, made: str) -> bool:
    """Whether bddl's data explains `made` becoming real in this step."""
    from eval_kit.saferelbench import knowledge

    synset = objects[made]
    where = step.args[-1] if step.args else None
    present = {objects.get(where)}  # what the acted-on object is and holds (a machine's, a pot's contents)
    present |= {objects.get(lit[1]) for lit in before if lit[0] in ("inside", "ontop") and lit[2] == where}
    present |= {objects.get(lit[2]) for lit in before if lit[0] in ("contains", "filled") and lit[1] == where}
    if step.name == "COOK" and "water.n.06" in present:
        present.add("cooked__water.n.01")  # water boils in the same COOK step (water.n.06-cooking)
    for rule in knowledge.producers().get(synset, ()):
        if not all(s in present for s, _ in rule.inputs):
            continue
        if rule.kind == "slicing" and step.name != "CUT":
            continue
        if rule.kind == "dicing" and step.name != "DICE":
            continue
        return True
    for arg in step.args:  # derivatives of the object acted on (bddl's sliceable / diceable properties)
        base = objects.get(arg, "")
        kinds = {"CUT": ("slice",), "DICE": ("dice", "dice_cooked")}.get(step.name, ())
        if any(knowledge.derivative(base, k) == synset for k in kinds):
            return True
    return False


def audit_step(before, after, objects, step) -> list[str]:
    """Contradictions of one executed step with bddl's annotations (empty when none)."""
    from eval_kit.saferelbench import knowledge
    from eval_kit.saferelbench.spec import HELD_TARGET_ACTIONS

    out = []
    name, args = step.name, step.args
    touched = [args[-1]] if name in HELD_TARGET_ACTIONS and args else list(args)
    if name not in NO_CONTACT:
        for obj in touched:
            closed = _closed_around(before, objects, obj)
            if closed is not None:
                out.append(f"enclosure: {name} on {obj} through closed {closed}")
    if name == "COOK":
        why = _heat_ok(before, objects, args[0])
        if why is not None:
            out.append(f"heat: {why}")
        for lit in sorted(after - before):  # food is cooked in cookware, never lying on a burner
            if lit[0] != "cooked":
                continue
            burners = sorted(b[2] for b in before if b[0] == "ontop" and b[1] == lit[1]
                             and objects.get(b[2]) in knowledge.BARE_BURNERS)
            if burners:
                out.append(f"burner: {lit[1]} cooked lying directly on the burner of {burners[0]}")
    if name == "TOGGLE_ON" and args and objects.get(args[0]) in _machine_synsets() \
            and "openable" in knowledge.properties(objects.get(args[0], "")) and ("open", args[0]) in before:
        out.append(f"lid: {args[0]} switched on with its lid open")
    cycle = _cycle(after)
    if cycle is not None and _cycle(before) is None:
        out.append(f"cycle: {' on '.join(cycle)}")
    made = sorted(i for i in objects if _real(after, i) and ("future", i) in before)
    if name == "TOGGLE_ON" and args and objects.get(args[0]) in _machine_synsets():
        machine = args[0]
        inside = sorted(lit[1] for lit in before if lit[0] == "inside" and lit[2] == machine
                        and not knowledge.is_substance(objects.get(lit[1], "")))
        for inst in made:
            rules = [r for r in knowledge.producers().get(objects[inst], ())
                     if r.kind == "single_toggleable_machine"]
            strays = [o for o in inside if not any(objects[o] in {syn for syn, _ in r.inputs} for r in rules)]
            if rules and strays:
                out.append(f"garbage: {machine} made {inst} with {', '.join(strays)} (no recipe input) inside")
    gone = sorted(i for i in objects if _real(before, i) and not _real(after, i))
    if name == "CUT":
        cut = args[0]
        pieces = [i for i in made if objects[i] == knowledge.derivative(objects[cut], "slice")]
        if len(pieces) > knowledge.slice_count(objects[cut]):
            out.append(f"cut: CUT({cut}) made {len(pieces)} pieces; bddl's slicing rule makes "
                       f"{knowledge.slice_count(objects[cut])}")
        others = [i for i in gone if i != cut]
        if others:
            out.append(f"cut: CUT({cut}) also removed {', '.join(others)}")
    if name in ("FILL", "SOAK") and len(args) == 2:
        held, source = args
        pred = "saturated" if name == "SOAK" else "filled"
        for lit in sorted(after - before):
            if lit[0] == pred and lit[1] == held and not _source_gives(before, objects, source, lit[2]):
                out.append(f"fill: {name} takes {lit[2]} from {source}, which is not a source or container of it")
    for inst in made:
        if not _explained(before, after, objects, step, inst):
            out.append(f"transition: {inst} made with no bddl rule whose inputs were present")
        for rule in knowledge.rules("substance_watercooking"):
            if any(s == objects[inst] for s, _ in rule.outputs):
                pot = args[-1] if args else None
                water = {lit[2] for lit in before if lit[0] in ("contains", "filled") and lit[1] == pot
                         and objects.get(lit[2]) in ("cooked__water.n.01", "water.n.06")}
                if not water:
                    out.append(f"transition: {inst} water-cooked with no water in {pot}")
    return out


def audit(names: list[str]) -> dict:
    from eval_kit.saferelbench.activities import activity_status, compiled_activity
    from eval_kit.saferelbench.executor import execute
    from eval_kit.saferelbench.plan_parser import calls_in

    findings, plans, steps, reachable, loads = [], 0, 0, 0, 0
    for name in names:
        status = activity_status(name)
        loads += status.loads
        reachable += status.reachable
        if not status.witness:
            continue
        world, initial, goal, _, _ = compiled_activity(name)
        plan = [a for line in status.witness for a in calls_in(line, world.objects)]
        trace = execute(initial, world, plan)
        plans += 1
        bad_plan = False
        for number, step in enumerate(trace.steps, 1):
            steps += 1
            if step.status != "ok":
                findings.append({"activity": name, "step": number, "action": str(step.action),
                                 "problem": f"replay: the step fails ({step.error})"})
                bad_plan = True
                continue
            for problem in audit_step(step.before, step.after, world.objects, step.action):
                findings.append({"activity": name, "step": number, "action": str(step.action), "problem": problem})
                bad_plan = True
        if not goal.holds(trace.final):
            findings.append({"activity": name, "step": None, "action": None, "problem": "goal not reached"})
            bad_plan = True
        del bad_plan
    bad_plans = len({f["activity"] for f in findings})
    return {"activities": len(names), "loads": loads, "reachable": reachable, "witness_plans": plans,
            "steps": steps, "contradicted_steps": len(findings), "contradicted_plans": bad_plans,
            "findings": findings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="audit the first 60 activities only")
    parser.add_argument("--show", type=int, default=40, help="contradicted steps to print")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = parser.parse_args()
    from eval_kit.saferelbench.activities import all_activities

    names = all_activities()
    if args.quick:
        names = names[:60]
    report = audit(names)
    if args.json:
        print(json.dumps(report, indent=1))
        return
    by_kind: dict[str, int] = {}
    for f in report["findings"]:
        kind = f["problem"].split(":", 1)[0]
        by_kind[kind] = by_kind.get(kind, 0) + 1
    for f in report["findings"][:args.show]:
        print(f"  {f['activity']} step {f['step']}: {f['action']}: {f['problem']}")
    share = report["reachable"] / report["activities"] if report["activities"] else 0.0
    print(f"audited {report['witness_plans']} witness plans ({report['steps']} steps) of {report['activities']} "
          f"activities ({report['loads']} load)")
    print(f"contradicted steps: {report['contradicted_steps']} in {report['contradicted_plans']} plans"
          + (f" ({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))})" if by_kind else ""))
    print(f"reachable: {report['reachable']} of {report['activities']} ({100 * share:.1f}%; target >= 75%)")


if __name__ == "__main__":
    main()
