"""Which benchmarks the runner knows: name -> task class, run scorer and prompt variants.

To add a benchmark (BD-HazardVLM, SafeRelBench), write a Task subclass and a `score_run(task,
predictions_path) -> dict` that returns the benchmark's `--json` result (with "benchmark" and,
for paired significance tests, "per_sample": {"id": [...], "correct": [...]}), then call

    register(TaskEntry("saferelbench", SafeRelBenchTask, score_saferel_run, variants=("plain", "cot")))

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


TASKS: dict[str, TaskEntry] = {}


def register(entry: TaskEntry) -> None:
    TASKS[entry.name] = entry


def get(name: str) -> TaskEntry:
    if name not in TASKS:
        raise BadInput(f"unknown benchmark {name!r}", field="BENCHMARK", fix=f"use one of {', '.join(sorted(TASKS))}")
    return TASKS[name]


def make_task(name: str, *, data: str | Path | None = None, config: str | None = None,
              dataset_revision: str | None = None, variant: str | None = None) -> Task:
    entry = get(name)
    if variant is not None and variant not in entry.variants:
        allowed = ", ".join(entry.variants) or "none"
        raise BadInput(f"{name} has no prompt variant {variant!r}", field="--variant", fix=f"variants: {allowed}")
    if variant is None and entry.variants:
        variant = entry.variants[0]
    return entry.task_class(data=data, config=config, dataset_revision=dataset_revision, variant=variant)


def _register_builtin() -> None:
    from eval_kit.runners import movsafebench_task

    register(TaskEntry("movsafebench", movsafebench_task.MovSafeBenchTask, movsafebench_task.score_run))


_register_builtin()
