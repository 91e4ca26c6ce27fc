"""`hazardkit compare BENCHMARK RUN RUN ...`: paired significance tests between runs of any registered benchmark.

One click command per benchmark, built on first use from `COMMANDS.<name>` (the `compare` group lists every
benchmark of the registry); the work is `eval_kit.scoring.compare_runs`.
"""

from __future__ import annotations

from pathlib import Path

import click


def make_command(name: str) -> click.Command:
    from eval_kit import registry

    bench = registry.get(name)

    @click.command(bench.cli_name)
    @click.argument("runs", nargs=-1, required=True)
    @click.option("--references", "-r", default=None,
                  help="References: a dataset folder, Parquet or JSON Lines file, or a Hub id ORG/NAME[@REVISION] "
                       "(hf://datasets/ORG/NAME also works). Default: the data the run folders name.")
    @click.option("--config", default=None, help="Dataset config (must exist in the references; default: the "
                  "one the run folders name, else the dataset's only or default config).")
    @click.option("--dataset-revision", default=None, help="Revision of a Hub id written without @REVISION.")
    @click.option("--json", "as_json", is_flag=True, help="Print the tests as one JSON object.")
    @click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True),
                  help="Significance level for the Holm-corrected p-values.")
    @click.option("--allow-missing", is_flag=True,
                  help="Compare on the samples every run answered instead of refusing incomplete runs.")
    def command(runs: tuple[str, ...], references: str | None, config: str | None, dataset_revision: str | None,
                as_json: bool, alpha: float, allow_missing: bool) -> None:
        from eval_kit.scoring import compare_runs as cr

        result = cr.compare_runs(bench.name, cr.named_runs(runs), references=references, config=config,
                                 dataset_revision=dataset_revision, alpha=alpha, allow_missing=allow_missing)
        click.echo(cr.as_json(result) if as_json else cr.render(result), nl=as_json)

    command.help = (f"Compare {bench.title} runs (run folders of `hazardkit eval`, or prediction files; `PATH` or "
                    "`NAME=PATH`) scored on the same references and dataset version: exact McNemar on per-sample "
                    "correctness, Wilcoxon signed-rank on per-sample scores, Holm across the pairs of each task. "
                    "Run folders made on another dataset revision or config are refused.")
    return command


class _Commands:
    """`COMMANDS.movsafebench` -> that benchmark's compare command (what the registry-driven group resolves)."""

    def __getattr__(self, name: str) -> click.Command:
        if name.startswith("_"):
            raise AttributeError(name)
        return make_command(name)


COMMANDS = _Commands()
__all__ = ["COMMANDS", "Path", "make_command"]
