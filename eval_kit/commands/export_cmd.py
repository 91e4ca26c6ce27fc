"""`hazardkit export lmms-eval --out DIR`: task folders for lmms-eval (library: eval_kit.lmms_export)."""

from __future__ import annotations

from pathlib import Path

import click

from eval_kit.errors import BadInput


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    from eval_kit import registry

    out = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not rest:
            raise BadInput(f"{value!r} is not BENCHMARK=VALUE", field=option, fix=f"e.g. {option} movsafebench=...")
        out[registry.get(name).name] = rest
    return out


@click.group("export")
def export() -> None:
    """Export benchmarks for other evaluation tools."""


@export.command("lmms-eval")
@click.option("--out", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="Folder for the task folders (give it to lmms-eval as --include_path).")
@click.option("--benchmark", "-b", "names", multiple=True,
              help="Benchmark to export (repeatable; default: every benchmark that has an lmms-eval task).")
@click.option("--data", "data", multiple=True, metavar="BENCHMARK=SOURCE",
              help="Dataset of a benchmark: a Hub id ORG/NAME[@REVISION] (default: the registry's) or a local "
                   "Parquet file / dataset folder (its files are named by absolute path).")
@click.option("--config", "configs", multiple=True, metavar="BENCHMARK=CONFIG",
              help="Dataset config of a benchmark (default: demo on the Hub, the only one of a local folder).")
@click.option("--retry", default="off", show_default=True, type=click.Choice(("off", "once", "strict")),
              help="bd-hazardvlm's formatting retry. lmms-eval asks each sample once, so only off can be exported "
                   "(recorded in the task's metadata); once/strict runs need `hazardkit eval --retry`.")
def export_lmms_eval(out: Path, names: tuple[str, ...], data: tuple[str, ...], configs: tuple[str, ...],
                     retry: str) -> None:
    """Write lmms-eval task folders (YAML + utils.py re-exporting hazardkit's prompt, parser and scorer).

    Run them with `lmms-eval --model ... --tasks hazardkit_movsafebench --include_path DIR --log_samples`
    and score the samples log with `hazardkit score movsafebench --references ... --from-lmms-eval FILE`.
    """
    from eval_kit import registry
    from eval_kit.lmms_export import data_source, export

    sources, config_of = _pairs(data, "--data"), _pairs(configs, "--config")
    chosen = [registry.get(n) for n in names] if names else [b for b in registry.benchmarks() if b.lmms_eval]
    if retry != "off":
        with_retry = [b.cli_name for b in chosen if b.retry_policies] or ["no chosen benchmark"]
        raise BadInput(f"--retry {retry} cannot be exported: lmms-eval's generate_until asks each sample once "
                       f"({', '.join(with_retry)})", field="--retry",
                       fix=f"export with --retry off, or run `hazardkit eval bd-hazardvlm --retry {retry}`")
    tasks = {}
    for bench in chosen:
        if not bench.lmms_eval:
            raise BadInput(f"{bench.cli_name} has no lmms-eval task", field="--benchmark",
                           fix="see docs/running-models.md, 'With lmms-eval', for why")
        task = bench.part("lmms_eval")
        value, config = sources.get(bench.name), config_of.get(bench.name)
        if value is None and task.default_data is not None:
            value, config = task.default_data() or (None, config)
        source = data_source(value, config=config, default_hub_id=bench.hub_id)
        try:
            task.files(source)
        except BadInput as exc:
            if names:  # asked for by name: its problem is the answer
                raise
            click.echo(f"skipped {bench.cli_name}: {exc}", err=True)
            continue
        tasks[bench.name] = (task, source)
    for folder in export(out, tasks):
        click.echo(f"wrote {folder}/")
    click.echo(f"run: lmms-eval --model MODEL --tasks {','.join(t.name for t, _ in tasks.values())} "
               f"--include_path {out} --log_samples --output_path OUT")
