"""SafeRelBench submission rules for `hazardkit validate`: references, prediction schema, label check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval_kit.leaderboard.checker import SubmissionChecker


class SafeRelBenchChecker(SubmissionChecker):
    """Lines of schema `saferelbench_plan`, one per (id, prompt variant); every variant must cover every sample."""

    benchmark = "saferelbench"
    versions = ("1.0",)
    prediction_schema = "saferelbench_plan"
    fields = frozenset({"id", "variant", "plan", "response"})
    no_answer = ("no answer: needs a list 'plan' of {action, args} or a string 'response' (raw text)", "plan",
                 'e.g. {"id": "...", "plan": [{"action": "GRASP", "args": ["apple.n.01_1"]}]}')

    def _task(self, references: Path, config: str | None):
        from eval_kit.saferelbench.task import SafeRelBenchTask

        return SafeRelBenchTask(data=references, config=config)

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        return set(self._task(references, config).compiled())

    def reference_revision(self, references: Path, config: str | None) -> str:
        return self._task(references, config).dataset_revision

    @staticmethod
    def _variant(obj: dict[str, Any]) -> str:
        from eval_kit.saferelbench import spec

        raw = obj.get("variant")
        return "base" if raw is None else (spec.normalise_variant(str(raw)) or str(raw))

    def line_key(self, obj: dict[str, Any]) -> str:
        return f"{obj['id']} ({self._variant(obj)})"

    def missing(self, reference_ids: set[str], keys: dict[str, dict[str, Any]]) -> list[str]:
        variants = sorted({self._variant(obj) for obj in keys.values()})
        return [f"{i} ({v})" for v in variants for i in sorted(reference_ids) if f"{i} ({v})" not in keys]

    def label_problems(self, obj: dict[str, Any]) -> list[tuple[str, str, str]]:
        from eval_kit.saferelbench import spec
        from eval_kit.saferelbench.actions import normalise_name

        problems = []
        raw = obj.get("variant")
        if isinstance(raw, str) and spec.normalise_variant(raw) is None:
            problems.append(("variant", f"unknown prompt variant {raw!r}", f"use one of {', '.join(spec.VARIANTS)}"))
        plan = obj.get("plan")
        if isinstance(plan, list):
            for i, step in enumerate(plan):
                name = step.get("action") if isinstance(step, dict) else None
                if isinstance(name, str) and normalise_name(name) not in spec.ACTIONS:
                    problems.append((f"plan/{i}/action", f"{name!r} is not a SafeRelBench action",
                                     f"use one of {', '.join(spec.ACTIONS)}"))
        return problems

    def metadata_problems(self, meta: dict[str, Any]) -> list[tuple[str, str, str]]:
        from eval_kit.saferelbench import spec

        raw = meta.get("variant")
        if isinstance(raw, str) and spec.normalise_variant(raw) is None:
            return [("variant", f"unknown prompt variant {raw!r}", f"use one of {', '.join(spec.VARIANTS)}")]
        return []
