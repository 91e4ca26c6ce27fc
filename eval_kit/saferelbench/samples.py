"""SafeRelBench samples: loading (JSON Lines or Parquet rows), schema + semantic validation, compiled goals.

A sample file line follows `eval_kit/saferelbench/schemas/saferelbench_sample.schema.json`. Beyond the schema, a
sample must name a real BEHAVIOR-1K activity shipped with `bddl`, its literals and conditions must parse
with bddl's parser over its own objects, and the reference plan's `mitigates` flags must name its goals.
The builder (`builder/saferel_samples.py`) additionally executes the reference plan (self-validation).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.saferelbench.actions import Action, action_from_json, trigger_matcher
from eval_kit.saferelbench.executor import World
from eval_kit.saferelbench.goals import CompiledCondition, compile_condition
from eval_kit.saferelbench.literals import LiteralError, State, split_initial
from eval_kit.saferelbench.spec import RELATION_OF_RISK

SCHEMA = "saferelbench_sample"
STEP_CAP_EXTRA = 10
JSON_FIELDS = ("objects", "process_goals", "termination_goals", "reference_plan", "added_objects")
# derived on the way to Parquet (from `added_objects`), dropped on the way back: "activity" or "added"
DERIVED_FIELDS = ("hazard_object", "plan_steps", "place_on_top_steps", "termination_goal_count")


@dataclass(frozen=True)
class ProcessGoal:
    """Checked on the state just before every attempted occurrence of `trigger` (an action), or, for a
    state trigger, on the state after every executed step after which `trigger_state` holds."""

    id: str
    condition: CompiledCondition
    trigger: Action | None
    tip: str
    mitigation: tuple[Action, ...]
    trigger_state: CompiledCondition | None = None

    @cached_property
    def matches(self) -> Callable[[Action], bool] | None:
        """`trigger_matches(self.trigger, step)` for a step with the trigger's name (None: a state trigger)."""
        return None if self.trigger is None else trigger_matcher(self.trigger)


@dataclass(frozen=True)
class TerminationGoal:
    """Checked on the final state: always, on task completion, or after `trigger` was executed."""

    id: str
    condition: CompiledCondition
    gate: str
    trigger: Action | None
    tip: str
    mitigation: tuple[Action, ...]


@dataclass(frozen=True)
class Sample:
    id: str
    source_activity: str
    split: str
    matched_id: str | None
    relation: str
    risk_type: str
    instruction: str
    world: World
    initial_state: State  # without the static (inroom ...) facts, which are in world.rooms
    task_goal: CompiledCondition
    process_goals: tuple[ProcessGoal, ...]
    termination_goals: tuple[TerminationGoal, ...]
    reference_plan: tuple[Action, ...]
    mitigation_steps: Mapping[str, tuple[int, ...]]  # goal id -> indices of reference-plan steps
    raw: Mapping[str, Any]
    # The goals that count in SRec: all of a spatial sample's; a control's only when its reference plan flags
    # mitigation steps for them (a goal whose hazard the control lacks cannot fail there; `saferel validate`
    # checks that it holds in the control's initial state).
    counted_goals: frozenset[str] | None = None

    @property
    def step_cap(self) -> int:
        """Steps executed at most: the reference plan's length + STEP_CAP_EXTRA (IS-Bench's rule)."""
        return len(self.reference_plan) + STEP_CAP_EXTRA

    @property
    def goal_ids(self) -> list[str]:
        return [g.id for g in self.process_goals] + [g.id for g in self.termination_goals]


@cache
def bddl_activities() -> frozenset[str]:
    """The BEHAVIOR-1K activity names shipped with bddl (1,016 folders)."""
    from bddl.activity import get_all_activities

    return frozenset(get_all_activities())


def _fail(message: str, where: Mapping[str, Any], field: str | None = None, fix: str | None = None) -> BadInput:
    return BadInput(message, path=where.get("path"), line=where.get("line"), field=field, fix=fix)


def build_sample(obj: Mapping[str, Any], *, path: str | Path | None = None, line: int | None = None,
                 check_activity: bool = True) -> Sample:
    """Validate one raw sample (schema, then semantics) and compile it; bad input raises BadInput."""
    from eval_kit.schemas import first_error

    where = {"path": path, "line": line}
    problem = first_error(SCHEMA, obj)
    if problem is not None:
        raise _fail(problem[1], where, problem[0])
    if RELATION_OF_RISK[obj["risk_type"]] != obj["relation"]:
        raise _fail(f"risk type {obj['risk_type']!r} belongs to relation {RELATION_OF_RISK[obj['risk_type']]!r}",
                    where, "risk_type")
    if check_activity and obj["source_activity"] not in bddl_activities():
        raise _fail(f"{obj['source_activity']!r} is not a BEHAVIOR-1K activity shipped with bddl", where,
                    "source_activity", "use a folder name from bddl/activity_definitions")
    if obj["split"] == "control" and not obj.get("matched_id"):
        raise _fail("a control sample needs the id of its matched spatial sample", where, "matched_id")
    objects = {o["instance"]: o["synset"].lower() for o in obj["objects"]}
    if len(objects) != len(obj["objects"]):
        raise _fail("duplicate object instance", where, "objects")
    for inst, synset in objects.items():
        if not inst.startswith(synset + "_"):
            raise _fail(f"instance {inst!r} should be named {synset}_N (or {synset}_*)", where, "objects")
    abilities = {o["instance"]: frozenset(o.get("abilities", [])) for o in obj["objects"]}

    def compiled(text: str, field: str) -> CompiledCondition:
        try:
            return compile_condition(text, objects)
        except LiteralError as exc:
            raise _fail(str(exc), where, field) from None

    try:
        initial, negated, rooms = split_initial(obj["initial_state"])
    except LiteralError as exc:
        raise _fail(str(exc), where, "initial_state") from None
    for lit in initial | negated | {("inroom", inst) for inst in rooms}:
        for arg in lit[1:]:  # (inroom obj room): a room is a place, not an object
            if arg not in objects:
                raise _fail(f"initial literal names unknown object {arg!r}", where, "initial_state")
    try:
        world = World.build(objects, abilities, rooms)
    except ValueError as exc:
        raise _fail(str(exc), where, "objects") from None

    def actions(items: Iterable[Mapping], field: str) -> tuple[Action, ...]:
        out = []
        for i, item in enumerate(items):
            action = action_from_json(item, objects)
            for arg in action.args:
                if arg != "*" and arg not in objects:
                    raise _fail(f"unknown object {arg!r}", where, f"{field}/{i}/args")
            out.append(action)
        return tuple(out)

    process = []
    for i, g in enumerate(obj["process_goals"]):
        if "state" in g["trigger"]:
            trigger, trigger_state = None, compiled(g["trigger"]["state"], f"process_goals/{i}/trigger/state")
        else:
            trigger, trigger_state = actions([g["trigger"]], f"process_goals/{i}/trigger")[0], None
        process.append(ProcessGoal(g["id"], compiled(g["condition"], f"process_goals/{i}/condition"), trigger,
                                   g["tip"], actions(g.get("mitigation", []), f"process_goals/{i}/mitigation"),
                                   trigger_state))
    termination = []
    for i, g in enumerate(obj["termination_goals"]):
        gate = g["gate"]
        trigger = actions([gate["trigger"]], f"termination_goals/{i}/gate")[0] if "trigger" in gate else None
        if (gate["type"] == "after_trigger") != (trigger is not None):
            raise _fail("gate 'after_trigger' needs a trigger; other gates take none", where,
                        f"termination_goals/{i}/gate")
        termination.append(TerminationGoal(
            g["id"], compiled(g["condition"], f"termination_goals/{i}/condition"), gate["type"], trigger,
            g["tip"], actions(g.get("mitigation", []), f"termination_goals/{i}/mitigation")))
    goal_ids = [g.id for g in process] + [g.id for g in termination]
    if len(set(goal_ids)) != len(goal_ids):
        raise _fail("duplicate safety goal id", where, "process_goals")
    plan = actions(obj["reference_plan"], "reference_plan")
    steps: dict[str, list[int]] = {gid: [] for gid in goal_ids}
    for i, item in enumerate(obj["reference_plan"]):
        for gid in item.get("mitigates", []):
            if gid not in steps:
                raise _fail(f"step mitigates unknown goal {gid!r}", where, f"reference_plan/{i}/mitigates")
            steps[gid].append(i)
    for goal in [*process, *termination]:
        flagged = tuple(plan[i] for i in steps[goal.id])
        if goal.mitigation and flagged != goal.mitigation and not (obj["split"] == "control" and not flagged):
            raise _fail(f"goal {goal.id!r}: mitigation {[str(a) for a in goal.mitigation]} differs from the "
                        f"reference-plan steps flagged for it {[str(a) for a in flagged]}", where,
                        "reference_plan", "flag exactly the mitigation steps with `mitigates`")
    return Sample(
        id=obj["id"], source_activity=obj["source_activity"], split=obj["split"],
        matched_id=obj.get("matched_id"), relation=obj["relation"], risk_type=obj["risk_type"],
        instruction=obj["instruction"], world=world, initial_state=initial,
        task_goal=compiled(obj["task_goal"], "task_goal"), process_goals=tuple(process),
        termination_goals=tuple(termination), reference_plan=plan,
        mitigation_steps={k: tuple(v) for k, v in steps.items()}, raw=dict(obj),
        counted_goals=None if obj["split"] == "spatial" else frozenset(g for g, v in steps.items() if v),
    )


def sample_to_row(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A flat row for Parquet / `datasets` (nested fields as JSON strings); see `features()`."""
    row = {k: v for k, v in raw.items() if k not in JSON_FIELDS}
    for key in JSON_FIELDS:
        row[key] = json.dumps(raw.get(key, []), ensure_ascii=False, sort_keys=True)
    # the water added to a pot for rice or ramen ("purpose": "cooking water") is no hazard object
    # nor is a counter added as the place a hazard object is moved to ("purpose": "destination")
    row["hazard_object"] = "added" if any(a.get("purpose") not in ("cooking water", "destination")
                                          for a in raw.get("added_objects", [])) \
        else "activity"
    # counted by the card (plan length, PLACE_ON_TOP share, termination goals), measured from the shards
    plan = raw.get("reference_plan", [])
    row["plan_steps"] = len(plan)
    row["place_on_top_steps"] = sum(1 for step in plan if str(step.get("action", "")).upper() == "PLACE_ON_TOP")
    row["termination_goal_count"] = len(raw.get("termination_goals", []))
    row.setdefault("matched_id", None)
    row.setdefault("hazard_reason", None)
    return row


def sample_from_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Inverse of `sample_to_row` (also accepts already-nested rows, as in the JSON Lines files)."""
    raw = {k: v for k, v in row.items() if k not in DERIVED_FIELDS}
    for key in JSON_FIELDS:
        if isinstance(raw.get(key), str):
            raw[key] = json.loads(raw[key])
    if raw.get("matched_id") is None:
        raw.pop("matched_id", None)
    if raw.get("hazard_reason") is None:
        raw.pop("hazard_reason", None)
    if "initial_state" in raw:
        raw["initial_state"] = list(raw["initial_state"])
    return raw


def load_raw_samples(path: str | Path, config: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(location, raw sample) from a JSON Lines file, a Parquet file or a dataset folder."""
    from eval_kit.tables import read_reference_rows

    path = Path(path)
    if path.is_dir() and not (path / "data").is_dir() and not list(path.glob("*.parquet")):
        files = sorted(path.glob("*.jsonl"))
        if not files:
            raise BadInput("no *.jsonl or Parquet samples found", path=path)
        rows = []
        for file in files:
            rows += [(f"{file}:{where}", r) for where, r in read_reference_rows(file, ())]
    else:
        columns = ("id", "source_activity", "split", "relation", "risk_type", "instruction", "task_goal",
                   "objects", "initial_state", "process_goals", "termination_goals", "reference_plan")
        rows = read_reference_rows(path, columns, config=config,
                                   optional=("matched_id", "added_objects", "hazard_reason"))
    return [(where, sample_from_row(r)) for where, r in rows]


def load_samples(path: str | Path, config: str | None = None, *, check_activity: bool = True) -> dict[str, Sample]:
    """Validated samples keyed by id; duplicate ids and dangling `matched_id`s are bad input."""
    out: dict[str, Sample] = {}
    for where, raw in load_raw_samples(path, config):
        line = int(where.rsplit("line ", 1)[1]) if "line " in where else None
        file = where.split(":line")[0] if ":line" in where else path
        sample = build_sample(raw, path=file, line=line, check_activity=check_activity)
        if sample.id in out:
            raise BadInput(f"duplicate sample id {sample.id!r}", path=file, line=line, field="id")
        out[sample.id] = sample
    for sample in out.values():
        if sample.matched_id and sample.matched_id not in out:
            raise BadInput(f"sample {sample.id!r}: matched_id {sample.matched_id!r} is not in the file", path=path,
                           field="matched_id")
    return out
