"""Per-benchmark submission rules for `hazardkit validate`: references, prediction schema, label check.

MovSafeBench, BD-HazardVLM and SafeRelBench are registered at the bottom; to add a benchmark, subclass
SubmissionChecker and `register()` it there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput


class SubmissionChecker:
    """What `validate` needs to know about one benchmark."""

    benchmark: str = ""
    versions: tuple[str, ...] = ()  # benchmark versions this kit can score
    prediction_schema: str = ""  # name in manifests/schemas/
    fields: frozenset[str] = frozenset({"id", "prediction", "response"})
    no_answer: tuple[str, str, str] | None = None  # (message, field, fix) when a line carries no answer

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        raise NotImplementedError

    def reference_revision(self, references: Path, config: str | None) -> str:
        raise NotImplementedError

    def label_problem(self, obj: dict[str, Any]) -> tuple[str, str, str] | None:
        """(field, message, fix) when the line's prediction is outside the label space."""
        return None

    def label_problems(self, obj: dict[str, Any]) -> list[tuple[str, str, str]]:
        """Every (field, message, fix) of the line's labels; by default the one `label_problem` finds."""
        problem = self.label_problem(obj)
        return [] if problem is None else [problem]

    def line_key(self, obj: dict[str, Any]) -> str:
        """What must be unique per line (the id; SafeRelBench: id and prompt variant)."""
        return obj["id"]

    def missing(self, reference_ids: set[str], keys: dict[str, dict[str, Any]]) -> list[str]:
        """Descriptions of the expected lines that are absent (`keys`: line key -> its object)."""
        return sorted(reference_ids - {obj["id"] for obj in keys.values()})

    def metadata_problems(self, meta: dict[str, Any]) -> list[tuple[str, str, str]]:
        """(field, message, fix) of benchmark-specific metadata rules."""
        return []


class MovSafeBenchChecker(SubmissionChecker):
    benchmark = "movsafebench"
    versions = ("1.0",)
    prediction_schema = "movsafebench_prediction"

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        from eval_kit.commands.score_movsafebench import load_references

        return set(load_references(references, config))

    def reference_revision(self, references: Path, config: str | None) -> str:
        from eval_kit.runners.movsafebench_task import MovSafeBenchTask

        return MovSafeBenchTask(data=references, config=config).dataset_revision

    def label_problem(self, obj: dict[str, Any]) -> tuple[str, str, str] | None:
        from eval_kit.benchmarks import movsafebench as spec

        value = obj.get("prediction")
        if isinstance(value, str) and spec.normalise_prediction(value) is None:
            return ("prediction", f"{value!r} is not a MovSafeBench answer",
                    "use left / straight / right or A / B / C, or put raw text in 'response'")
        return None


class BDHazardVLMChecker(SubmissionChecker):
    """Lines of schema `bd_hazardvlm_prediction`; a parsed `prediction` must map into the label space."""

    benchmark = "bd_hazardvlm"
    versions = ("1.0",)
    prediction_schema = "bd_hazardvlm_prediction"
    fields = frozenset({"id", "prediction", "response", "initial_response", "retried"})
    no_answer = ("no answer: needs an object 'prediction' (the eight fields) or a string 'response' (raw text)",
                 "prediction", 'e.g. {"id": "...", "response": "{\\"hazard_present\\": true, ...}"}')

    def _task(self, references: Path, config: str | None):
        from eval_kit.runners.bd_hazardvlm_task import BDHazardVLMTask

        return BDHazardVLMTask(data=references, config=config)

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        return set(self._task(references, config).records())

    def reference_revision(self, references: Path, config: str | None) -> str:
        return self._task(references, config).dataset_revision

    def label_problems(self, obj: dict[str, Any]) -> list[tuple[str, str, str]]:
        from eval_kit.benchmarks import bd_hazardvlm as spec

        value = obj.get("prediction")
        if not isinstance(value, dict):
            return []
        fix = "use the labels of manifests/schemas/bd_hazardvlm_output.schema.json, or put raw text in 'response'"
        return [(f"prediction/{name}", message, fix) for name, message in spec.normalise_output(value).violations]


class SafeRelBenchChecker(SubmissionChecker):
    """Lines of schema `saferelbench_plan`, one per (id, prompt variant); every variant must cover every sample."""

    benchmark = "saferelbench"
    versions = ("1.0",)
    prediction_schema = "saferelbench_plan"
    fields = frozenset({"id", "variant", "plan", "response"})
    no_answer = ("no answer: needs a list 'plan' of {action, args} or a string 'response' (raw text)", "plan",
                 'e.g. {"id": "...", "plan": [{"action": "GRASP", "args": ["apple.n.01_1"]}]}')

    def _task(self, references: Path, config: str | None):
        from eval_kit.runners.saferelbench_task import SafeRelBenchTask

        return SafeRelBenchTask(data=references, config=config)

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        return set(self._task(references, config).compiled())

    def reference_revision(self, references: Path, config: str | None) -> str:
        return self._task(references, config).dataset_revision

    @staticmethod
    def _variant(obj: dict[str, Any]) -> str:
        from eval_kit.benchmarks import saferelbench as spec

        raw = obj.get("variant")
        return "base" if raw is None else (spec.normalise_variant(str(raw)) or str(raw))

    def line_key(self, obj: dict[str, Any]) -> str:
        return f"{obj['id']} ({self._variant(obj)})"

    def missing(self, reference_ids: set[str], keys: dict[str, dict[str, Any]]) -> list[str]:
        variants = sorted({self._variant(obj) for obj in keys.values()})
        return [f"{i} ({v})" for v in variants for i in sorted(reference_ids) if f"{i} ({v})" not in keys]

    def label_problems(self, obj: dict[str, Any]) -> list[tuple[str, str, str]]:
        from eval_kit.benchmarks import saferelbench as spec
        from eval_kit.saferel.actions import normalise_name

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
        from eval_kit.benchmarks import saferelbench as spec

        raw = meta.get("variant")
        if isinstance(raw, str) and spec.normalise_variant(raw) is None:
            return [("variant", f"unknown prompt variant {raw!r}", f"use one of {', '.join(spec.VARIANTS)}")]
        return []


CHECKERS: dict[str, SubmissionChecker] = {}


def register(checker: SubmissionChecker) -> None:
    CHECKERS[checker.benchmark] = checker


def get(benchmark: str) -> SubmissionChecker:
    """By benchmark name (`bd_hazardvlm`) or CLI spelling (`bd-hazardvlm`)."""
    key = benchmark.replace("-", "_")
    if key not in CHECKERS:
        raise BadInput(f"no submission rules for benchmark {benchmark!r}", field="BENCHMARK",
                       fix=f"use one of {', '.join(sorted(n.replace('_', '-') for n in CHECKERS))}")
    return CHECKERS[key]


register(MovSafeBenchChecker())
register(BDHazardVLMChecker())
register(SafeRelBenchChecker())
