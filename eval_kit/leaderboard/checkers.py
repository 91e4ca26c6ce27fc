"""Per-benchmark submission rules for `hazardkit validate`: references, prediction schema, label check.

To add a benchmark, subclass SubmissionChecker and `register()` it at the bottom of this module.
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

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        raise NotImplementedError

    def reference_revision(self, references: Path, config: str | None) -> str:
        raise NotImplementedError

    def label_problem(self, obj: dict[str, Any]) -> tuple[str, str, str] | None:
        """(field, message, fix) when the line's prediction is outside the label space."""
        return None


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


CHECKERS: dict[str, SubmissionChecker] = {}


def register(checker: SubmissionChecker) -> None:
    CHECKERS[checker.benchmark] = checker


def get(benchmark: str) -> SubmissionChecker:
    if benchmark not in CHECKERS:
        raise BadInput(f"no submission rules for benchmark {benchmark!r}", field="BENCHMARK",
                       fix=f"use one of {', '.join(sorted(CHECKERS))}")
    return CHECKERS[benchmark]


register(MovSafeBenchChecker())
