"""`hazardkit score bd-hazardvlm`: validate a submission, parse raw responses, print the paper's diagnostics."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from eval_kit.benchmarks import bd_hazardvlm as spec
from eval_kit.textreport import pct, render


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
    from eval_kit.scoring.bd_hazardvlm import compute_scores

    refs = spec.load_annotations(references, config=config)
    run = resolve_run(refs, predictions, allow_missing=allow_missing)
    result = compute_scores(run.references, run.predictions, schema_valid=run.schema_valid,
                            initial_schema_valid=run.initial_schema_valid, retried=run.retried)
    result["missing"] = run.missing
    result["references_incomplete"] = spec.incomplete_parquet(references, config)
    result["references"] = str(references)
    result["predictions"] = str(predictions)
    return result


def render_tables(result: dict[str, Any]) -> str:
    """The paper's tables 4 (core diagnostics) and 5 (traps) for one model, plus prediction distributions."""
    return render(lambda console: _draw(console, result), width=200)


def _draw(console, result: dict[str, Any]) -> None:
    from rich.table import Table

    t4 = Table(title=f"Core diagnostics (%, paper table 4; {result['num_samples']} images)")
    cols = [("Hazard acc.", result["hazard_presence"]["accuracy"]),
            ("Majority baseline", result["hazard_presence"]["majority_baseline"]),
            ("Category acc.", result["category"]["accuracy"]), ("Category macro-F1", result["category"]["macro_f1"]),
            ("Timing acc.", result["timing"]["accuracy"]), ("Severity acc.", result["severity"]["accuracy"]),
            ("High-sev. recall", result["severity"]["high_recall"]),
            ("Action exact", result["actions"]["exact_match"]), ("Action overlap", result["actions"]["any_overlap"]),
            ("Action Jaccard", result["actions"]["mean_jaccard"])]
    for name, _ in cols:
        t4.add_column(name, justify="right")
    t4.add_row(*[pct(v) for _, v in cols])
    console.print(t4)

    t5 = Table(title="Trap self-reports (%, paper table 5)")
    for name in ("trap", "human positive rate", "flag rate", "recall", "flags", "true-positive flags"):
        t5.add_column(name, justify="right")
    for trap in ("hallucination_trap", "western_bias_trap"):
        r = result[trap]
        t5.add_row(trap, pct(r["reference_rate"]), pct(r["flag_rate"]), pct(r["recall"]), str(r["flags"]),
                   str(r["true_positive_flags"]))
    console.print(t5)

    for task in ("category", "timing", "severity"):
        dist = Table(title=f"{task}: reference vs predicted counts (collapse check)")
        labels = list(result[task]["prediction_distribution"])
        dist.add_column("")
        for label in labels:
            dist.add_column(label, justify="right")
        dist.add_row("reference", *[str(result[task]["reference_distribution"].get(x, 0)) for x in labels])
        dist.add_row("predicted", *[str(result[task]["prediction_distribution"][x]) for x in labels])
        console.print(dist)
    s = result["schema"]
    console.print(f"schema-valid: {pct(s['valid_rate'])}% (initial {pct(s['initial_valid_rate'])}%), "
                  f"retries: {s['retry_count']} ({s['retried_then_valid']} valid after retry), "
                  f"missing: {result['missing']}")


@click.command()
@click.option("--references", "references", required=True, type=click.Path(path_type=Path),
              help="Annotation records: JSON Lines, Parquet file, or dataset folder (data/annotations/).")
@click.option("--predictions", "predictions", required=True, type=click.Path(path_type=Path),
              help="JSON Lines: {id, prediction (8-field object) and/or response (raw text)}.")
@click.option("--config", default=None, help="Config of a dataset folder (default: annotations, or the only one).")
@click.option("--json", "as_json", is_flag=True, help="Print every metric as one JSON object (fractions).")
@click.option("--allow-missing", is_flag=True, help="Score reference ids without a prediction as wrong.")
def score_bd_hazardvlm(references: Path, predictions: Path, config: str | None, as_json: bool,
                       allow_missing: bool) -> None:
    """Score BD-HazardVLM predictions as in the paper (tables 4 and 5).

    Every field is mapped to the label space on its own; a missing or unmappable field is scored wrong
    and counted in `schema.invalid_field_counts`. Trap fields give positive-flag rate and recall.
    """
    result = score_files(references, predictions, config=config, allow_missing=allow_missing)
    for partial in result["references_incomplete"]:
        click.echo(f"warning: {partial['file']} is an INCOMPLETE reconstruction ({partial.get('reconstructed')} of "
                   f"{partial.get('expected')} images): these scores are not BD-HazardVLM scores", err=True)
    if as_json:
        click.echo(json.dumps(result, sort_keys=False))
    else:
        click.echo(render_tables(result), nl=False)
