"""`hazardkit leaderboard add|render`: collect scored results into a Parquet table and publish it."""

from __future__ import annotations

from pathlib import Path

import click

from eval_kit.errors import BadInput

DEFAULT_TABLE = Path("leaderboard") / "results.parquet"


@click.group("leaderboard")
def leaderboard() -> None:
    """Collect scored results and render the leaderboard (Markdown + static HTML + plots)."""


@leaderboard.command("add")
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--table", type=click.Path(path_type=Path, dir_okay=False), default=DEFAULT_TABLE, show_default=True,
              help="Results table (Parquet); created when absent.")
@click.option("--model", default=None, help="Model name for results that do not carry one.")
@click.option("--run", "run_name", default=None, help="Run name for results that do not carry one.")
@click.option("--config", default=None, help="Dataset config the results were scored on (default: from the result, "
              "its run folder's run.json, or the references it names).")
@click.option("--dataset-version", default=None, help="Dataset release version (default: the release manifest of "
              "the references, if published).")
@click.option("--dataset-revision", default=None, help="Dataset revision (default: from the result or run folder, "
              "else the content revision of the references).")
def add(results: tuple[Path, ...], table: Path, model: str | None, run_name: str | None, config: str | None,
        dataset_version: str | None, dataset_revision: str | None) -> None:
    """Add scored results (the --json output of `hazardkit score ...`, or a run's scores.json) to the table.

    Every row records the benchmark, dataset config, version and revision it was measured on; results on
    demo or synthetic data are marked and ranked apart. A result with the same benchmark, config, model and
    run as a row already there replaces it.
    """
    from eval_kit.leaderboard.results import add_results, load_result_file, result_row

    rows = [result_row(load_result_file(path), source=str(path), model=model, run=run_name, config=config,
                       version=dataset_version, revision=dataset_revision) for path in results]
    added, replaced = add_results(table, rows)
    click.echo(f"{table}: {added} added, {replaced} replaced")


@leaderboard.command("render")
@click.option("--table", type=click.Path(path_type=Path, dir_okay=False), default=DEFAULT_TABLE, show_default=True)
@click.option("--out", "-o", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="Folder for leaderboard.md, index.html and plots/.")
def render_command(table: Path, out: Path) -> None:
    """Write the leaderboard: one sortable table per benchmark, breakdowns, CIs, significance matrix, plots."""
    from eval_kit.leaderboard.render import render
    from eval_kit.leaderboard.results import read_table

    rows = read_table(table)
    if not rows:
        raise BadInput("results table is empty or missing", path=table, fix="add results with `leaderboard add`")
    paths = render(rows, out)
    click.echo(f"markdown: {paths['markdown']}\nhtml:     {paths['html']}\nplots:    {paths['plots']}")
