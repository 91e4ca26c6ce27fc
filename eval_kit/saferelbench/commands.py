"""`hazardkit score saferelbench`: a thin click command over `submission.score_files` and `report.render_tables`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from eval_kit.saferelbench.report import render_tables
from eval_kit.saferelbench.submission import score_files


@click.command()
@click.option("--references", "-r", "--samples", "-s", "samples_path", required=True, type=click.Path(path_type=Path),
              help="The benchmark's samples (--samples is the old name): a JSON Lines file or folder "
                   "(manifests/saferelbench/), a Parquet file, or a dataset "
                   "folder (data/<config>/*.parquet), or a Hub id ORG/NAME[@REVISION] (e.g. hazardkit/saferelbench).")
@click.option("--predictions", "-p", "--plans", "plans", type=click.Path(path_type=Path), default=None,
              help="The model's plans (--plans is the old name), JSON Lines: "
                   "{\"id\", \"variant\"?, \"plan\": [{\"action\", \"args\"}]} and/or {\"response\": raw text}.")
@click.option("--traces", "-t", type=click.Path(path_type=Path), default=None,
              help="JSON Lines traces from a simulator (or --write-traces), scored by the same rules.")
@click.option("--config", default=None, help="Dataset config when --samples is a dataset folder (e.g. demo).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (fractions in [0, 1]).")
@click.option("--allow-missing", is_flag=True, help="Score samples without a plan / trace as failures.")
@click.option("--on-failure", type=click.Choice(["continue", "stop"]), default="continue", show_default=True,
              help="After a failed precondition: skip the step and continue, or stop the plan.")
@click.option("--write-traces", "traces_out", type=click.Path(path_type=Path), default=None,
              help="Write the executor's traces (JSON Lines, the --traces format) here.")
@click.option("--per-sample", is_flag=True, help="With --json: include every episode's goals and outcome.")
@click.option("--from-lmms-eval", "lmms_samples", type=click.Path(path_type=Path), default=None,
              help="Instead of --plans: an lmms-eval samples log (--log_samples) of the task "
                   "`hazardkit export lmms-eval` wrote.")
def score_saferelbench(samples_path: Path, plans: Path | None, traces: Path | None, config: str | None,
                       as_json: bool, allow_missing: bool, on_failure: str, traces_out: Path | None,
                       per_sample: bool, lmms_samples: Path | None) -> None:
    """Score SafeRelBench plans and/or traces: SR, SSR, SRec, SSR/SR by relation, risk type, split, variant.

    Plans run through the symbolic executor; process-level goals are checked before every executed
    occurrence of their trigger, termination-level goals on the final state according to their gate.
    Unparseable or empty plans are failures (SR = SSR = 0), counted in `unparsed`.
    """
    from eval_kit.registry import resolve_data

    samples_path, _ = resolve_data(samples_path, config=config, field="--samples")
    if lmms_samples is None:
        result = score_files(samples_path, plans, traces, config=config, allow_missing=allow_missing,
                             on_failure=on_failure, traces_out=traces_out, per_sample=per_sample)
    else:
        from eval_kit.lmms_export import prediction_file

        with prediction_file(plans, lmms_samples) as converted:
            result = score_files(samples_path, converted, traces, config=config, allow_missing=allow_missing,
                                 on_failure=on_failure, traces_out=traces_out, per_sample=per_sample)
        result["plans"]["path"] = str(lmms_samples)
    if as_json:
        click.echo(json.dumps(result, sort_keys=False))
    else:
        click.echo(render_tables(result), nl=False)


