"""Baselines that need no model: random (seeded per sample), majority class, fixed answer.

They are real leaderboard rows: a model that does not beat them has learnt nothing from the image.
Their responses are the task's own answer text, so they go through the same parser as a model's.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.backends.base import Backend
from eval_kit.runners.task import Request, Task

KINDS = ("random", "majority", "fixed")


class BaselineBackend(Backend):
    """`--model random`, `--model majority` or `--model fixed:<label>`."""

    name = "baseline"

    def __init__(self, model: str, task: Task, *, seed: int = 0, limit: int | None = None) -> None:
        kind, _, arg = model.partition(":")
        kinds = [k for k in KINDS if k in task.baseline_kinds]
        if kind not in kinds:
            usage = ", ".join(k + (":<label>" if k == "fixed" else "") for k in kinds)
            labels = ", ".join(map(str, task.label_space()))
            raise BadInput(f"unknown baseline {model!r} for {task.name}", field="--model",
                           fix=f"use {usage} (labels: {labels})")
        self.kind, self.task, self.seed = kind, task, seed
        space = list(task.label_space())
        self.answer: Any = None
        if kind == "fixed":
            if arg not in [str(x) for x in space]:
                raise BadInput(f"fixed answer {arg!r} is not a {task.name} label", field="--model",
                               fix=f"use fixed:<one of {', '.join(map(str, space))}>")
            self.answer = space[[str(x) for x in space].index(arg)]
        elif kind == "majority":
            # the most frequent reference label of the evaluated split (ties: label-space order)
            counts = Counter(s.label for s in task.samples(limit=limit, text_only=True))
            self.answer = max(space, key=lambda lab: (counts.get(lab, 0), -space.index(lab)))
        self.space = space

    def settings(self) -> dict[str, Any]:
        return {"baseline": self.kind, "seed": self.seed if self.kind == "random" else None,
                "answer": None if self.answer is None else str(self.answer)}

    def prepare(self, sample: Request) -> Request:
        """A baseline never looks at the images: nothing to decode."""
        return sample

    def _pick(self, sample: Request) -> Any:
        if self.kind == "random":
            # seeded by (seed, id): the same sample gets the same answer in any order, resumed or not
            return random.Random(f"{self.seed}:{sample.id}").choice(self.space)
        return self.answer

    def generate(self, samples: Sequence[Request]) -> list[str]:
        return [self.task.baseline_answer(s, self._pick(s)) for s in samples]
