"""`hazardkit score bd-hazardvlm`: a thin click command over `submission.score_files` and `report.render_tables`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from eval_kit.bd_hazardvlm.report import render_tables
from eval_kit.bd_hazardvlm.submission import score_files


@click.command()
@click.option("--references", "references", required=True, type=click.Path(path_type=Path),
              help="Annotation records: JSON Lines, Parquet file, dataset folder (data/annotations/), "
                   "or a Hub id ORG/NAME[@REVISION] (e.g. hazardkit/bd-hazardvlm).")
@click.option("--predictions", "predictions", default=None, type=click.Path(path_type=Path),
              help="JSON Lines: {id, prediction (8-field object) and/or response (raw text)}.")
@click.option("--from-lmms-eval", "lmms_samples", type=click.Path(path_type=Path), default=None,
              help="Instead of --predictions: an lmms-eval samples log (--log_samples) of the task "
                   "`hazardkit export lmms-eval` wrote; scored with every breakdown.")
@click.option("--config", default=None, help="Config of a dataset folder (default: annotations, or the only one).")
@click.option("--json", "as_json", is_flag=True, help="Print every metric as one JSON object (fractions).")
@click.option("--allow-missing", is_flag=True, help="Score reference ids without a prediction as wrong.")
def score_bd_hazardvlm(references: Path, predictions: Path | None, lmms_samples: Path | None, config: str | None,
                       as_json: bool,
                       allow_missing: bool) -> None:
    """Score BD-HazardVLM predictions as in the paper (tables 4 and 5).

    Every field is mapped to the label space on its own; a missing or unmappable field is scored wrong
    and counted in `schema.invalid_field_counts`. Trap fields give positive-flag rate and recall.
    """
    from eval_kit.lmms_export import prediction_file
    from eval_kit.registry import resolve_data

    references, _ = resolve_data(references, config=config, field="--references")
    with prediction_file(predictions, lmms_samples) as preds:
        result = score_files(references, preds, config=config, allow_missing=allow_missing)
    result["predictions"] = str(predictions or lmms_samples)
    for partial in result["references_incomplete"]:
        click.echo(f"warning: {partial['file']} is an INCOMPLETE reconstruction ({partial.get('reconstructed')} of "
                   f"{partial.get('expected')} images): these scores are not BD-HazardVLM scores", err=True)
    if as_json:
        click.echo(json.dumps(result, sort_keys=False))
    else:
        click.echo(render_tables(result), nl=False)
