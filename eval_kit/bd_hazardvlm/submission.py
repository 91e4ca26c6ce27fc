"""Reading a bd_hazardvlm submission and its references, and scoring them: the library behind `hazardkit score`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.bd_hazardvlm import spec


@dataclass
class ResolvedRun:
    """One run's predictions aligned on the reference ids, with what the parser found."""

    ids: list[str]
    references: list[dict[str, Any]]
    predictions: list[dict[str, Any] | None]
    schema_valid: list[bool]
    initial_schema_valid: list[bool]
    retried: list[bool]
    missing: int


def _resolve_line(obj: dict[str, Any]) -> tuple[spec.ParseResult, spec.ParseResult]:
    """(final, initial) parse results of one prediction line; `prediction` wins over `response`."""
    if isinstance(obj.get("prediction"), dict):
        final = spec.normalise_output(obj["prediction"])
    else:
        final = spec.parse_response(obj.get("response"))
    initial = final
    if obj.get("retried") and obj.get("initial_response") is not None:
        initial = spec.parse_response(obj["initial_response"])
    return final, initial


def resolve_run(
    references: dict[str, dict[str, Any]], predictions_path: Path, *, allow_missing: bool = False
) -> ResolvedRun:
    """Read, validate and parse one prediction file against the references (BadInput on bad files)."""
    from eval_kit.tables import check_coverage, read_predictions

    preds = read_predictions(predictions_path, spec.PREDICTION_SCHEMA)
    missing = check_coverage(preds, references, predictions_path, allow_missing=allow_missing)
    run = ResolvedRun([], [], [], [], [], [], len(missing))
    for sample_id, ref in references.items():
        run.ids.append(sample_id)
        run.references.append(ref)
        if sample_id not in preds:
            run.predictions.append(None)
            run.schema_valid.append(False)
            run.initial_schema_valid.append(False)
            run.retried.append(False)
            continue
        _, obj = preds[sample_id]
        final, initial = _resolve_line(obj)
        run.predictions.append(final.prediction)
        run.schema_valid.append(final.valid)
        run.initial_schema_valid.append(initial.valid)
        run.retried.append(bool(obj.get("retried")))
    return run


def score_files(references: Path, predictions: Path, *, config: str | None = None,
                allow_missing: bool = False) -> dict[str, Any]:
    """Everything `hazardkit score bd-hazardvlm` does short of printing; returns the JSON result.

    `references_incomplete` lists reconstructed Parquet files marked incomplete (built with
    --allow-missing): their scores cover only the images that were rebuilt, not the benchmark.
    """
    from eval_kit.bd_hazardvlm.scoring import compute_scores

    refs = spec.load_annotations(references, config=config)
    run = resolve_run(refs, predictions, allow_missing=allow_missing)
    result = compute_scores(run.references, run.predictions, schema_valid=run.schema_valid,
                            initial_schema_valid=run.initial_schema_valid, retried=run.retried)
    result["missing"] = run.missing
    result["references_incomplete"] = spec.incomplete_parquet(references, config)
    result["references"] = str(references)
    result["predictions"] = str(predictions)
    return result


