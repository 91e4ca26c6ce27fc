"""`hazardkit eval BENCHMARK`: run a model (or a baseline) on a benchmark into a resumable run folder."""

from __future__ import annotations

from pathlib import Path

import click

from eval_kit.runners.backends.factory import BACKENDS


@click.command("eval")
@click.argument("benchmark", required=False)
@click.option("--preset", default=None, metavar="NAME",
              help="A paper's settings for one of its models (model, dtype, quantization, processor args, retry, "
                   "generation); options you give override it, with a note. See --list-presets.")
@click.option("--list-presets", is_flag=True, help="List the paper presets with their settings and source, and exit.")
@click.option("--model", "-m", default=None,
              help="Hub id or local folder (transformers, vllm), served model name (openai), or for "
                   "--backend baseline one of random, majority, fixed:<label>.")
@click.option("--model-name", default=None, metavar="NAME",
              help="The name metadata.json, the leaderboard and exports show (default: the Hub id, or a local "
                   "folder's own name; never its path, which stays in run.json).")
@click.option("--backend", "-b", default=None, type=click.Choice(BACKENDS),
              help="How to run the model (required unless a --preset gives it).")
@click.option("--out", "-o", default=None, type=click.Path(path_type=Path, file_okay=False),
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
@click.option("--batch-size", default="8", show_default=True, metavar="N|auto",
              help="transformers/vllm: samples per generate call, or auto: the largest batch that fits (from 64, "
                   "halved on out-of-memory; recorded in metadata.json). A batch that runs out of memory is split "
                   "in halves. Every backend: the raw log is fsync'd after this many outcomes (each is written "
                   "and flushed as soon as it is known).")
@click.option("--dataset-revision", default=None,
              help="Dataset revision to record (Hub tag or commit); default: a content hash of the data files.")
@click.option("--revision", default=None,
              help="Model revision (Hub branch, tag or commit) to load (transformers, vllm) and record.")
@click.option("--model-args", default=None, metavar="KEY=VALUE,...",
              help="transformers: device_map, dtype, attn_implementation, trust_remote_code, max_memory; "
                   "vllm: any engine setting, e.g. tensor_parallel_size=2,gpu_memory_utilization=0.85,"
                   "max_model_len=8192. Part of every request key.")
@click.option("--processor-args", default=None, metavar="KEY=VALUE,...",
              help="transformers: the image processor's settings, e.g. min_pixels=200704,max_pixels=401408 "
                   "(Qwen-VL), max_patches=6 (InternVL), max_slice_nums=9 (MiniCPM-V). Part of every request key.")
@click.option("--retry", default=None, type=click.Choice(("off", "once", "strict")),
              help="bd-hazardvlm: the formatting-only retry: off (default: the paper retried MiniCPM-V-4.6 only), "
                   "once (when the answer is not schema-valid), strict (also when a value needed a synonym, as "
                   "the paper counted). Part of every request key.")
@click.option("--gen-kwargs", default=None, metavar="KEY=VALUE,...",
              help="temperature, top_p, top_k, max_new_tokens, seed, stop (greedy unless temperature > 0). "
                   "Part of every request key.")
@click.option("--max-new-tokens", default=256, show_default=True, type=click.IntRange(min=1))
@click.option("--max-pixels", default=1024 * 28 * 28, show_default=True, type=click.IntRange(min=1),
              help="Images are downscaled (keeping aspect) to at most this many pixels.")
@click.option("--seed", default=0, show_default=True, help="Seed of the random baseline.")
@click.option("--max-failures", default="10", show_default=True, metavar="N|P%",
              help="Stop asking new samples once more than N samples (or P% of them) have failed.")
@click.option("--base-url", default=None, help="openai: server URL, e.g. http://127.0.0.1:8000/v1.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="openai: environment variable that holds the API key.")
@click.option("--concurrency", default=8, show_default=True, type=click.IntRange(min=1),
              help="openai: requests in flight at all times.")
@click.option("--max-retries", default=5, show_default=True, type=click.IntRange(min=0),
              help="openai: retries per request (transient errors and malformed answers), with exponential backoff.")
@click.option("--retry-backoff", default=0.5, show_default=True, type=click.FloatRange(min=0),
              help="openai: seconds before the first retry; doubles per retry, at most 8 s (a server's Retry-After "
                   "may ask for longer: see --retry-after-cap).")
@click.option("--retry-after-cap", default=None, type=click.FloatRange(min=0), metavar="SECONDS",
              help="openai: the longest wait a server's Retry-After header (seconds or an HTTP-date) may ask for "
                   "before a retry (default 60); 0 ignores the header.")
@click.option("--timeout", default=120.0, show_default=True, type=click.FloatRange(min=0.1),
              help="openai: seconds per request attempt, as a whole (connect, headers and body).")
@click.option("--max-response-bytes", default=None, type=click.IntRange(min=1024),
              help="openai: the largest answer kept, in bytes, before and after decompression (default 4 MiB); "
                   "a larger one fails its sample.")
@click.option("--image-format", default=None, type=click.Choice(("auto", "png", "jpeg")),
              help="openai: how images travel. auto (default): a source JPEG needing no resizing as its own bytes, "
                   "a resized JPEG as JPEG q95, others as PNG; png: always PNG; jpeg: always JPEG. Part of the key.")
@click.option("--device", default=None, help="transformers: torch device (default cuda if available).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def eval_command(benchmark: str | None, preset: str | None, list_presets: bool, model: str | None,
                 backend: str | None, out: Path | None, data: Path | None, config: str | None,
                 limit: int | None, text_only: bool, variant: str | None, images: Path | None, batch_size: str,
                 dataset_revision: str | None, revision: str | None, model_args: str | None,
                 processor_args: str | None, retry: str | None, gen_kwargs: str | None,
                 max_new_tokens: int, max_pixels: int, seed: int, max_failures: str, base_url: str | None,
                 api_key_env: str, concurrency: int, max_retries: int, retry_backoff: float, timeout: float,
                 max_response_bytes: int | None, image_format: str | None, device: str | None,
                 no_progress: bool, retry_after_cap: float | None = None, model_name: str | None = None) -> None:
    """Run MODEL on BENCHMARK (movsafebench, bd-hazardvlm, saferelbench), logging every raw answer.

    The raw log is keyed by sample id and a hash of (dataset revision, prompt, model, generation
    settings): re-running never redoes or duplicates an answered sample, asks failed ones again, and cuts
    off a torn last line from a crash. Afterwards `hazardkit score run RUNDIR` scores it, offline.

    \b
    Exit codes: 0 every sample answered; 1 internal error; 2 bad input or model setup (one line, the fix);
    3 some samples failed or --max-failures stopped the run (answers kept; run the same command again).
    """
    import sys

    from eval_kit import registry
    from eval_kit.commands.eval_options import resolve_run_options
    from eval_kit.folder_lock import folder_lock
    from eval_kit.runners import harness
    from eval_kit.runners.backends.factory import make_backend
    from eval_kit.runners.backends.options import parse_pairs

    if list_presets:
        from eval_kit.runners.presets import listing

        click.echo(listing())
        return
    options = resolve_run_options(
        click.get_current_context(), benchmark=benchmark, preset=preset, out=out,
        values={"model": model, "backend": backend, "max_new_tokens": max_new_tokens, "retry": retry,
                "model_args": parse_pairs(model_args, "--model-args"),
                "processor_args": parse_pairs(processor_args, "--processor-args"),
                "gen_kwargs": parse_pairs(gen_kwargs, "--gen-kwargs"), "base_url": base_url,
                "api_key_env": api_key_env})
    model, backend, max_new_tokens = options["model"], options["backend"], options["max_new_tokens"]
    base_url, api_key_env = options["base_url"], options["api_key_env"]  # a SafeRel API preset sets both
    parsed_model_args, parsed_gen_kwargs = options["model_args"], options["gen_kwargs"]
    assert benchmark is not None and out is not None  # checked by resolve_run_options
    from eval_kit.display_names import display_name

    shown, name_note = display_name(model, model_name)  # the note is printed once the run went ahead: a refusal
    # stays one line
    budget = harness.FailureBudget.parse(max_failures)
    harness.BatchSize.parse(batch_size)  # a wrong value is refused before anything loads
    task = registry.make_task(benchmark, data=data, config=config, dataset_revision=dataset_revision,
                              variant=variant, images=images, retry=options["retry"])
    bench = registry.get(benchmark)
    if text_only and not bench.has_images:
        click.echo(f"note: {bench.title} prompts carry no image, so this run is the same as without --text-only",
                   err=True)
    incomplete = getattr(task, "incomplete_reconstruction", lambda: [])()
    for partial in incomplete:
        click.echo(f"warning: {partial['file']} is an INCOMPLETE reconstruction ({partial.get('reconstructed')} of "
                   f"{partial.get('expected')} images): a run on it is not a {bench.title} result", err=True)
    from eval_kit.clikit import second_interrupt_exits

    created = not out.exists()
    try:
        with second_interrupt_exits(), folder_lock(out, f"eval {benchmark} --model {model} --backend {backend}"):
            engine = make_backend(backend, model, task, limit=limit, seed=seed, max_new_tokens=max_new_tokens,
                                  max_pixels=max_pixels, base_url=base_url, api_key_env=api_key_env,
                                  concurrency=concurrency, max_retries=max_retries, timeout=timeout, device=device,
                                  revision=revision, model_args=parsed_model_args, gen_kwargs=parsed_gen_kwargs,
                                  retry_backoff=retry_backoff, image_format=image_format,
                                  max_response_bytes=max_response_bytes, processor_args=options["processor_args"],
                                  retry_after_cap=retry_after_cap)
            summary = harness.run(task, engine, out, model=model, limit=limit, text_only=text_only,
                                  batch_size=batch_size, revision=revision, progress=not no_progress,
                                  max_failures=budget, preset=options["preset"], display_name=shown,
                                  notify=lambda line: click.echo(f"note: {line}", err=True))
    except BaseException:
        if created and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # a setup error leaves no empty run folder behind
        raise
    if name_note:
        click.echo(f"note: {name_note}", err=True)
    _report_failures(summary)
    try:
        click.echo(
            f"{summary.total} samples: {summary.generated} generated ({summary.samples_per_second:.1f}/s), "
            f"{summary.skipped} resumed from the log, {summary.failed} failed, {summary.repaired} formatting retries"
            + (f", cut a torn last line of {summary.torn_bytes} bytes" if summary.torn_bytes else "")
        )
        click.echo(f"raw log:     {out / harness.RAW_LOG}")
        click.echo(f"predictions: {out / harness.PREDICTIONS}")
        click.echo(f"metadata:    {out / harness.METADATA}")
        click.echo(f"score it:    hazardkit score run {out}")
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()  # `hazardkit eval ... | head -1`: the reader left; that is not an error
    if summary.failed or summary.stopped:
        raise SystemExit(EXIT_FAILED_SAMPLES)


EXIT_FAILED_SAMPLES = 3


def _report_failures(summary) -> None:
    """How many samples failed and why (most frequent reasons, example ids), on stderr."""
    if not summary.failed and not summary.stopped:
        return
    if summary.stopped:
        click.echo(f"stopped early: {summary.stopped}; {summary.unanswered} samples are still without an answer",
                   err=True)
    if summary.failed:
        click.echo(f"{summary.failed} sample(s) failed:", err=True)
        for reason, count, ids in summary.failure_reasons():
            more = ", ..." if count > len(ids) else ""
            click.echo(f"  {count} x {reason} (e.g. {', '.join(ids)}{more})", err=True)
    click.echo("answers are kept and failures are in raw.jsonl; run the same command again to ask only the "
               "unanswered samples, or `hazardkit score run` to score now (failed samples count as wrong)", err=True)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not raise BrokenPipeError again."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # not a real file descriptor (e.g. a test runner's buffer)
    finally:
        os.close(devnull)
