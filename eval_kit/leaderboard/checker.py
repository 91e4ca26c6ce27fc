"""What `hazardkit validate` needs to know about a benchmark: the base class of each benchmark's checker.

Each benchmark subclasses `SubmissionChecker` in its own folder (`eval_kit/<name>/checker.py`) and names
it in its registry entry; `checker_for` looks it up there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class SubmissionChecker:
    """What `validate` needs to know about one benchmark."""

    benchmark: str = ""
    versions: tuple[str, ...] = ()  # benchmark versions this kit can score
    prediction_schema: str = ""  # schema name (a `<name>.schema.json` in the benchmark's schemas/ folder)
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


def checker_for(benchmark: str) -> SubmissionChecker:
    """The checker of a benchmark, by Python (`bd_hazardvlm`) or CLI spelling (`bd-hazardvlm`)."""
    from eval_kit import registry

    return registry.get(benchmark).part("checker")()
