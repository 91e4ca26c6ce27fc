"""BD-HazardVLM submission rules for `hazardkit validate`: references, prediction schema, label check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval_kit.leaderboard.checker import SubmissionChecker


class BDHazardVLMChecker(SubmissionChecker):
    """Lines of schema `bd_hazardvlm_prediction`; a parsed `prediction` must map into the label space."""

    benchmark = "bd_hazardvlm"
    versions = ("1.0",)
    prediction_schema = "bd_hazardvlm_prediction"
    fields = frozenset({"id", "prediction", "response", "initial_response", "retried"})
    no_answer = ("no answer: needs an object 'prediction' (the eight fields) or a string 'response' (raw text)",
                 "prediction", 'e.g. {"id": "...", "response": "{\\"hazard_present\\": true, ...}"}')

    def _task(self, references: Path, config: str | None):
        from eval_kit.bd_hazardvlm.task import BDHazardVLMTask

        return BDHazardVLMTask(data=references, config=config)

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        return set(self._task(references, config).records())

    def reference_revision(self, references: Path, config: str | None) -> str:
        return self._task(references, config).dataset_revision

    def label_problems(self, obj: dict[str, Any]) -> list[tuple[str, str, str]]:
        from eval_kit.bd_hazardvlm import spec

        value = obj.get("prediction")
        if not isinstance(value, dict):
            return []
        fix = ("use the labels of eval_kit/bd_hazardvlm/schemas/bd_hazardvlm_output.schema.json, "
               "or put raw text in 'response'")
        return [(f"prediction/{name}", message, fix) for name, message in spec.normalise_output(value).violations]
