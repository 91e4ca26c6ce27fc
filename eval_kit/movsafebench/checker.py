"""MovSafeBench submission rules for `hazardkit validate`: references, prediction schema, label check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval_kit.leaderboard.checker import SubmissionChecker


class MovSafeBenchChecker(SubmissionChecker):
    benchmark = "movsafebench"
    versions = ("1.0",)
    prediction_schema = "movsafebench_prediction"

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        from eval_kit.movsafebench.submission import load_references

        return set(load_references(references, config))

    def reference_revision(self, references: Path, config: str | None) -> str:
        from eval_kit.movsafebench.task import MovSafeBenchTask

        return MovSafeBenchTask(data=references, config=config).dataset_revision

    def label_problem(self, obj: dict[str, Any]) -> tuple[str, str, str] | None:
        from eval_kit.movsafebench import spec

        value = obj.get("prediction")
        if isinstance(value, str) and spec.normalise_prediction(value) is None:
            return ("prediction", f"{value!r} is not a MovSafeBench answer",
                    "use left / straight / right or A / B / C, or put raw text in 'response'")
        return None
