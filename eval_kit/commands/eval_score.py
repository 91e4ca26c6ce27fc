"""`hazardkit score run RUNDIR`: re-parse a run's raw log with today's parser and score it, offline."""

from __future__ import annotations

import json
from pathlib import Path

import click

from eval_kit.runners.run_scoring import score_run_dir


@click.command("run")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the result JSON (what `leaderboard add` takes).")
@click.option("--bootstrap", "n_bootstrap", default=1000, show_default=True, type=click.IntRange(100, 100000))
@click.option("--seed", default=0, show_default=True)
def score_run_command(run_dir: Path, as_json: bool, n_bootstrap: int, seed: int) -> None:
    """Score a `hazardkit eval` run folder from its raw log (re-parsed): movsafebench, bd-hazardvlm, saferelbench.

    Writes RUNDIR/predictions.jsonl (re-parsed) and RUNDIR/scores.json; --json prints the same JSON.
    Samples that failed during the run count as wrong; `failed` / `failed_ids` in the JSON list them.
    """
    from eval_kit import registry

    result = score_run_dir(run_dir, n_bootstrap=n_bootstrap, seed=seed)
    title = registry.get(result["benchmark"]).title
    for partial in result.get("references_incomplete") or []:
        click.echo(f"warning: {partial['file']} is an INCOMPLETE reconstruction ({partial.get('reconstructed')} of "
                   f"{partial.get('expected')} images): these scores are not {title} scores", err=True)
    if result.get("failed"):
        shown = ", ".join(result["failed_ids"][:5]) + (", ..." if result["failed"] > 5 else "")
        click.echo(f"warning: {result['failed']} sample(s) failed during the run and are scored as wrong ({shown}); "
                   f"rerun `hazardkit eval` with the same options to ask them again", err=True)
    if as_json:
        click.echo(json.dumps(result))
        return
    from eval_kit.leaderboard.boards import board_for, coverage_text, lookup

    board = board_for(result["benchmark"])
    headline = lookup(result, board.headline)
    click.echo(f"{result['benchmark']} / {result['model']}: {board.headline_label} "
               f"{'-' if headline is None else f'{100 * headline:.1f}%'} {coverage_text(result, board)}"
               f"{' (partial run)' if result.get('partial') else ''}; full result in {run_dir / 'scores.json'}")
