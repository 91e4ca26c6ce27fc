"""`hazardkit score movsafebench`: a thin click command over `submission.score_files` and `report.render_tables`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from eval_kit.movsafebench.report import render_tables
from eval_kit.movsafebench.submission import score_files


@click.command()
@click.option("--references", "-r", required=True, type=click.Path(path_type=Path),
              help="Reference rows: Parquet file, JSON Lines file, or a dataset folder (data/<config>/*.parquet) "
                   "with at least id, answer, scenario, category, source_benchmark (source_id for the CI), or a Hub id "
                   "ORG/NAME[@REVISION] (e.g. hazardkit/movsafebench@v0.1.0 --config demo).")
@click.option("--predictions", "-p", default=None, type=click.Path(path_type=Path),
              help="JSON Lines, one object per sample: {\"id\", \"prediction\": left|straight|right|A|B|C} "
                   "and/or {\"id\", \"response\": raw model text}.")
@click.option("--from-lmms-eval", "lmms_samples", type=click.Path(path_type=Path), default=None,
              help="Instead of --predictions: an lmms-eval samples log (--log_samples) of the task "
                   "`hazardkit export lmms-eval` wrote; scored with every breakdown.")
@click.option("--config", default=None, help="Dataset config when --references is a dataset folder.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (fractions in [0, 1]).")
@click.option("--allow-missing", is_flag=True,
              help="Score reference ids without a prediction as wrong instead of refusing the file.")
@click.option("--bootstrap", "n_bootstrap", default=1000, show_default=True, type=click.IntRange(100, 100000),
              help="Bootstrap resamples for the 95% confidence interval.")
@click.option("--seed", default=0, show_default=True, help="Seed of the bootstrap (results are reproducible).")
def score_movsafebench(references: Path, predictions: Path | None, lmms_samples: Path | None, config: str | None,
                       as_json: bool,
                       allow_missing: bool, n_bootstrap: int, seed: int) -> None:
    """Score MovSafeBench predictions as in the paper (tables 3, 4 and 5).

    `accuracy` ("Total" in the paper) is over edited images only; no_edit is reported by scenario.
    Unparsable responses are scored wrong and counted in `unparsed`. The 95% CI is a cluster
    bootstrap over source images.
    """
    from eval_kit.lmms_export import prediction_file
    from eval_kit.registry import resolve_data

    references, _ = resolve_data(references, config=config, field="--references")
    with prediction_file(predictions, lmms_samples) as preds:
        result = score_files(references, preds, config=config, allow_missing=allow_missing,
                             n_bootstrap=n_bootstrap, seed=seed)
    result["predictions"] = str(predictions or lmms_samples)
    if as_json:
        click.echo(json.dumps(result, sort_keys=False))
    else:
        click.echo(render_tables(result), nl=False)


