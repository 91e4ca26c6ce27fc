"""`hazardkit validate BENCHMARK`: every problem of a submission at once, then exit 2 if there was any."""

from __future__ import annotations

from pathlib import Path

import click

from eval_kit.errors import BadInput

MAX_LISTED = 50  # problems printed; the count of the rest follows (a million bad lines is one screen)


@click.command("validate")
@click.argument("benchmark")
@click.option("--references", "-r", required=True, type=click.Path(path_type=Path),
              help="Reference rows: a dataset folder, Parquet or JSON Lines file, or a Hub id ORG/NAME[@REVISION].")
@click.option("--predictions", "-p", required=True, type=click.Path(path_type=Path),
              help="The submission's JSON Lines predictions.")
@click.option("--metadata", type=click.Path(path_type=Path), default=None,
              help="The submission's metadata JSON (schema: eval_kit/schemas/submission_metadata.schema.json).")
@click.option("--config", default=None, help="Dataset config when --references is a dataset folder.")
@click.option("--dataset-revision", default=None,
              help="Revision the metadata must name (default: content hash of the reference files).")
def validate_command(benchmark: str, references: Path, predictions: Path, metadata: Path | None,
                     config: str | None, dataset_revision: str | None) -> None:
    """Check a submission against the references: schema, labels, duplicates, unknown and missing ids,
    and (with --metadata) benchmark, version and dataset revision. Lists every problem; exit 2 if any.
    """
    from eval_kit.leaderboard.checker import checker_for
    from eval_kit.leaderboard.validate import validate_submission
    from eval_kit.registry import resolve_data

    checker = checker_for(benchmark)
    references, hub_revision = resolve_data(references, config=config, revision=dataset_revision,
                                            field="--references")
    dataset_revision = dataset_revision or hub_revision
    problems, n = validate_submission(checker, references, predictions, metadata=metadata, config=config,
                                      dataset_revision=dataset_revision)
    if problems:
        for problem in problems[:MAX_LISTED]:
            click.echo(f"error: {problem}", err=True)
        if len(problems) > MAX_LISTED:
            click.echo(f"error: ... and {len(problems) - MAX_LISTED} more problem(s) not listed", err=True)
        raise BadInput(f"{len(problems)} problem(s) in the submission (listed above)", path=predictions,
                       fix="fix them all and validate again")
    click.echo(f"ok: {n} predictions for {benchmark}, every reference id covered"
               + (", metadata matches" if metadata is not None else ""))
