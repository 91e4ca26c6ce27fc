"""Which benchmarks the runner knows: name -> task class, run scorer and prompt variants.

MovSafeBench, BD-HazardVLM and SafeRelBench are registered below. To add a benchmark, write a Task
subclass and a `score_run(task, predictions_path) -> dict` that returns the benchmark's `--json`
result (with "benchmark" and, for paired significance tests, "per_sample": {"id": [...], "correct": [...]}), then call

    register(TaskEntry("mybench", MyBenchTask, score_mybench_run, variants=("plain", "cot")))

at the bottom of this module. `hazardkit eval` / `hazardkit score run` pick it up by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.task import Task


@dataclass(frozen=True)
class TaskEntry:
    name: str
    task_class: type[Task]
    score_run: Callable[..., dict[str, Any]]
    variants: tuple[str, ...] = ()  # prompt variants; the first is the default
    takes_images: bool = False  # whether `--images DIR` (image folder beside JSON Lines annotations) applies


TASKS: dict[str, TaskEntry] = {}


def register(entry: TaskEntry) -> None:
    TASKS[entry.name] = entry


def get(name: str) -> TaskEntry:
    """By registry name (`bd_hazardvlm`) or CLI spelling (`bd-hazardvlm`)."""
    name = name.replace("-", "_")
    if name not in TASKS:
        known = ", ".join(sorted(n.replace("_", "-") for n in TASKS))
        raise BadInput(f"unknown benchmark {name!r}", field="BENCHMARK", fix=f"use one of {known}")
    return TASKS[name]


def make_task(name: str, *, data: str | Path | None = None, config: str | None = None,
              dataset_revision: str | None = None, variant: str | None = None,
              images: str | Path | None = None) -> Task:
    """The benchmark's task; `images` (an image folder beside annotation JSON Lines) only where the task takes one."""
    entry = get(name.replace("-", "_"))
    if variant is not None and variant not in entry.variants:
        allowed = ", ".join(entry.variants) or "none"
        raise BadInput(f"{name} has no prompt variant {variant!r}", field="--variant", fix=f"variants: {allowed}")
    if variant is None and entry.variants:
        variant = entry.variants[0]
    options: dict[str, Any] = {}
    if images is not None:
        if not entry.takes_images:
            raise BadInput(f"{name} takes no --images folder", field="--images",
                           fix="images come with its dataset; drop --images")
        options["images"] = images
    return entry.task_class(data=data, config=config, dataset_revision=dataset_revision, variant=variant, **options)


def _register_builtin() -> None:
    from eval_kit.benchmarks.saferelbench import VARIANTS
    from eval_kit.runners import bd_hazardvlm_task, movsafebench_task, saferelbench_task

    register(TaskEntry("movsafebench", movsafebench_task.MovSafeBenchTask, movsafebench_task.score_run))
    register(TaskEntry("bd_hazardvlm", bd_hazardvlm_task.BDHazardVLMTask, bd_hazardvlm_task.score_run,
                       takes_images=True))
    register(TaskEntry("saferelbench", saferelbench_task.SafeRelBenchTask, saferelbench_task.score_run,
                       variants=VARIANTS))


_register_builtin()
