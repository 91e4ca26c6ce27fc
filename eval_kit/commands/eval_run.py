"""`hazardkit eval BENCHMARK`: run a model (or a baseline) on a benchmark into a resumable run folder."""

from __future__ import annotations

from pathlib import Path

import click

from eval_kit.runners.backends.factory import BACKENDS


@click.command("eval")
@click.argument("benchmark")
@click.option("--model", "-m", required=True,
              help="Hub id or local folder (transformers, vllm), served model name (openai), or for "
                   "--backend baseline one of random, majority, fixed:<label>.")
@click.option("--backend", "-b", required=True, type=click.Choice(BACKENDS), help="How to run the model.")
@click.option("--out", "-o", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="Run folder: raw.jsonl (append-only log), run.json, predictions.jsonl, metadata.json. "
                   "Running again with the same options resumes.")
@click.option("--data", type=click.Path(path_type=Path), default=None,
              help="Dataset folder (data/<config>/*.parquet), Parquet file or JSON Lines file "
                   "(default: the benchmark's folder in this repository).")
@click.option("--config", default=None, help="Dataset config, e.g. demo.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N samples.")
@click.option("--text-only", is_flag=True,
              help="Control run: the same questions with the image withheld (answers from language priors).")
@click.option("--prompt-variant", "--variant", "variant", default=None,
              help="Prompt variant (saferelbench: base, risk_aware, action_grounded; default base). "
                   "Part of every request key.")
@click.option("--images", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="bd-hazardvlm with --data annotations.jsonl: image folder, laid out as "
                   "<images>/<source_dataset>/<source_path> or <images>/<source_path>.")
@click.option("--batch-size", default=8, show_default=True, type=click.IntRange(min=1),
              help="Requests per batch; the raw log is flushed and fsync'd after each batch.")
@click.option("--dataset-revision", default=None,
              help="Dataset revision to record (Hub tag or commit); default: a content hash of the data files.")
@click.option("--revision", default=None, help="Model revision to record in the metadata.")
@click.option("--max-new-tokens", default=256, show_default=True, type=click.IntRange(min=1))
@click.option("--max-pixels", default=1024 * 28 * 28, show_default=True, type=click.IntRange(min=1),
              help="Images are downscaled (keeping aspect) to at most this many pixels.")
@click.option("--seed", default=0, show_default=True, help="Seed of the random baseline.")
@click.option("--base-url", default=None, help="openai: server URL, e.g. http://127.0.0.1:8000/v1.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="openai: environment variable that holds the API key.")
@click.option("--concurrency", default=8, show_default=True, type=click.IntRange(min=1),
              help="openai: requests in flight at once.")
@click.option("--max-retries", default=5, show_default=True, type=click.IntRange(min=0),
              help="openai: retries with exponential backoff per request.")
@click.option("--timeout", default=120.0, show_default=True, type=click.FloatRange(min=0.1),
              help="openai: seconds per request.")
@click.option("--device", default=None, help="transformers: torch device (default cuda if available).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def eval_command(benchmark: str, model: str, backend: str, out: Path, data: Path | None, config: str | None,
                 limit: int | None, text_only: bool, variant: str | None, images: Path | None, batch_size: int,
                 dataset_revision: str | None, revision: str | None, max_new_tokens: int, max_pixels: int,
                 seed: int, base_url: str | None, api_key_env: str, concurrency: int, max_retries: int,
                 timeout: float, device: str | None, no_progress: bool) -> None:
    """Run MODEL on BENCHMARK (movsafebench, bd-hazardvlm, saferelbench) greedily, logging every raw answer.

    The raw log is keyed by sample id and a hash of (dataset revision, prompt, model, generation
    settings): re-running never redoes or duplicates a finished sample, and a torn last line from a
    crash is cut off. Afterwards `hazardkit score run RUNDIR` scores it, offline, as often as needed.
    """
    from eval_kit import registry
    from eval_kit.runners import harness
    from eval_kit.runners.backends.base import BackendError
    from eval_kit.runners.backends.factory import make_backend

    task = registry.make_task(benchmark, data=data, config=config, dataset_revision=dataset_revision,
                              variant=variant, images=images)
    bench = registry.get(benchmark)
    if text_only and not bench.has_images:
        click.echo(f"note: {bench.title} prompts carry no image, so this run is the same as without --text-only",
                   err=True)
    incomplete = getattr(task, "incomplete_reconstruction", lambda: [])()
    for partial in incomplete:
        click.echo(f"warning: {partial['file']} is an INCOMPLETE reconstruction ({partial.get('reconstructed')} of "
                   f"{partial.get('expected')} images): a run on it is not a {bench.title} result", err=True)
    engine = make_backend(backend, model, task, limit=limit, seed=seed, max_new_tokens=max_new_tokens,
                          max_pixels=max_pixels, base_url=base_url, api_key_env=api_key_env,
                          concurrency=concurrency, max_retries=max_retries, timeout=timeout, device=device)
    try:
        summary = harness.run(task, engine, out, model=model, limit=limit, text_only=text_only,
                              batch_size=batch_size, revision=revision, progress=not no_progress)
    except BackendError as exc:
        raise click.ClickException(f"{exc} (finished samples are kept; run again to resume)") from None
    click.echo(
        f"{summary.total} samples: {summary.generated} generated ({summary.samples_per_second:.1f}/s), "
        f"{summary.skipped} resumed from the log, {summary.repaired} formatting retries"
        + (f", cut a torn last line of {summary.torn_bytes} bytes" if summary.torn_bytes else "")
    )
    click.echo(f"raw log:     {out / harness.RAW_LOG}")
    click.echo(f"predictions: {out / harness.PREDICTIONS}")
    click.echo(f"metadata:    {out / harness.METADATA}")
    click.echo(f"score it:    hazardkit score run {out}")
