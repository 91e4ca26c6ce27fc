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
@click.option("--table", type=click.Path(path_type=Path), default=DEFAULT_TABLE, show_default=True,
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
    from eval_kit.safe_paths import refuse_link

    refuse_link(table, field="--table", what="the results table")  # replaced on write: never a planted link
    rows = [result_row(load_result_file(path), source=str(path), model=model, run=run_name, config=config,
                       version=dataset_version, revision=dataset_revision) for path in results]
    added, replaced = add_results(table, rows)
    click.echo(f"{table}: {added} added, {replaced} replaced")


@leaderboard.command("render")
@click.option("--table", type=click.Path(path_type=Path), default=DEFAULT_TABLE, show_default=True)
@click.option("--out", "-o", required=True, type=click.Path(path_type=Path),
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


# --- the web app ---------------------------------------------------------------------------------------------
def _space_options(command):
    """--space-dir and the operator settings shared by serve and the moderation commands (default: environment)."""
    options = [
        click.option("--space-dir", type=click.Path(path_type=Path), default=None,
                     help="Folder for results.parquet and submissions/ [env HAZARDKIT_SPACE_DIR, default space_data]."),
        click.option("--references", "references", multiple=True, metavar="NAME=SOURCE[#CONFIG]",
                     help="References of one benchmark: a local dataset folder / file, or hf://datasets/ORG/NAME"
                          "[@REV]; repeat per benchmark [env HAZARDKIT_REFERENCES]."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _settings(space_dir: Path | None, references: tuple[str, ...], **overrides):
    from eval_kit.leaderboard.space.settings import SpaceSettings, parse_references

    refs = parse_references(";".join(references), origin="--references") if references else None
    return SpaceSettings.from_env(data_dir=space_dir, references=refs, **overrides)


@leaderboard.command("serve")
@_space_options
@click.option("--max-upload-mb", type=click.FloatRange(min=0.001), default=None,
              help="Largest upload [env HAZARDKIT_MAX_UPLOAD_MB, default 20].")
@click.option("--max-rows", type=click.IntRange(min=1), default=None,
              help="Most lines per predictions file [env HAZARDKIT_MAX_ROWS, default 50000].")
@click.option("--daily-limit", type=click.IntRange(min=0), default=None,
              help="Submissions per user per 24 hours [env HAZARDKIT_DAILY_LIMIT, default 5].")
@click.option("--score-timeout", type=click.FloatRange(min=0), default=None,
              help="Seconds a submission may take to validate and score, in a worker process killed past it "
                   "[env HAZARDKIT_SCORE_TIMEOUT, default 20; 0: no limit].")
@click.option("--moderation/--no-moderation", default=None,
              help="Hold scored submissions as pending until `leaderboard approve` [env HAZARDKIT_MODERATION].")
@click.option("--trusted-proxy", "trusted_proxies", multiple=True, metavar="IP[/BITS]",
              help="A reverse proxy in front of the app whose X-Forwarded-For names the client (repeatable); "
                   "from any other address the header is ignored [env HAZARDKIT_TRUSTED_PROXIES, default none].")
@click.option("--disk-cap-mb", type=click.FloatRange(min=0), default=None,
              help="Most MB the upload folder and stored submissions may hold; uploads past it are refused "
                   "[env HAZARDKIT_DISK_CAP_MB, default 2048; 0: no cap].")
@click.option("--upload-ttl", type=click.FloatRange(min=1), default=None,
              help="Seconds an upload that did not become a submission is kept [env HAZARDKIT_UPLOAD_TTL, "
                   "default 600].")
@click.option("--host-name", "host_names", multiple=True, metavar="NAME",
              help="A host name the app answers to besides --host and localhost (a domain or proxy in front of it; "
                   "repeatable); requests naming any other Host are refused [env HAZARDKIT_HOST_NAMES].")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=7860, show_default=True)
def serve(space_dir: Path | None, references: tuple[str, ...], max_upload_mb: float | None, max_rows: int | None,
          daily_limit: int | None, score_timeout: float | None, moderation: bool | None,
          trusted_proxies: tuple[str, ...], disk_cap_mb: float | None, upload_ttl: float | None, host: str,
          port: int, host_names: tuple[str, ...] = ()) -> None:
    """Serve the leaderboard web app (Gradio; `pip install hazardkit[space]`): tables, submissions, About.

    Before it listens, it checks the port, the data folder and results table, and every benchmark's
    references (an unreachable hf:// repo included); an unusable one is one line and exit 2.
    """
    try:
        import gradio  # noqa: F401
    except ImportError:
        raise BadInput("the web app needs Gradio", fix="pip install 'hazardkit[space]'") from None
    from eval_kit.leaderboard.space.app import launch
    from eval_kit.leaderboard.space.preflight import preflight

    settings = _settings(space_dir, references, max_rows=max_rows, daily_limit=daily_limit, moderation=moderation,
                         max_upload_bytes=None if max_upload_mb is None else int(max_upload_mb * 2**20),
                         score_timeout=score_timeout, upload_ttl_s=upload_ttl)
    if settings.score_timeout == 0:
        settings.score_timeout = None
    if trusted_proxies:
        from eval_kit.leaderboard.space.settings import parse_proxies

        settings.trusted_proxies = parse_proxies(trusted_proxies, field="--trusted-proxy")
    if disk_cap_mb is not None:
        settings.disk_cap_bytes = int(disk_cap_mb * 2**20) or None
    if host_names:
        from eval_kit.leaderboard.space.settings import parse_host_names

        settings.host_names = (*settings.host_names, *parse_host_names(host_names, field="--host-name"))
    lb = preflight(settings, host, port)
    if not lb.benchmarks():
        click.echo("warning: no references given, so every submission will be refused; pass --references "
                   "NAME=SOURCE (or set HAZARDKIT_REFERENCES)", err=True)
    click.echo(f"serving on http://{host}:{port}/ (references: {', '.join(lb.benchmarks()) or 'none'})")
    try:
        launch(settings, lb, server_name=host, server_port=port, ssr_mode=False)
    except OSError as exc:  # the port was taken between the check and the listen
        raise BadInput(f"cannot listen on {host}:{port} ({str(exc)[:120]})", field="--port",
                       fix="pass --port with a free port") from None


@leaderboard.command("space")
@click.option("--out", "-o", required=True, type=click.Path(path_type=Path),
              help="Folder for the Space's app.py, requirements.txt and README.md.")
@click.option("--requirement", default=None, help="How the Space installs hazardkit (a requirements.txt line; "
              "default hazardkit[space]==VERSION).")
@click.option("--wheel", type=click.Path(path_type=Path), default=None,
              help="A hazardkit wheel to ship inside the Space (copied; requirements.txt installs it).")
@click.option("--title", default="hazardkit leaderboard", show_default=True)
def space(out: Path, requirement: str | None, wheel: Path | None, title: str) -> None:
    """Write the files of a Hugging Face Space that runs the leaderboard app (push the folder as a Gradio Space)."""
    from eval_kit.leaderboard.space.files import write_space

    for path in write_space(out, requirement=requirement, wheel=wheel, title=title):
        click.echo(f"wrote {path}")


@leaderboard.command("submissions")
@_space_options
@click.option("--status", default=None, help="Only submissions with this status (e.g. pending).")
def submissions(space_dir: Path | None, references: tuple[str, ...], status: str | None) -> None:
    """List the app's submissions: id, status, user, benchmark, model, sha256, time, outcome."""
    from eval_kit.errors import short
    from eval_kit.leaderboard.space.store import SubmissionStore

    settings = _settings(space_dir, references)
    for r in SubmissionStore(settings.submissions).records():
        if status is None or r.get("status") == status:
            # every field escaped: a record written before names were checked cannot reach the terminal raw
            cells = (r.get("id"), r.get("status"), r.get("user"), r.get("benchmark"), r.get("model"),
                     str(r.get("sha256"))[:12], r.get("received_at"), r.get("outcome", ""))
            click.echo("\t".join(short(str(x), 400) for x in cells))


@leaderboard.command("approve")
@click.argument("submission_ids", nargs=-1, required=True)
@_space_options
def approve(submission_ids: tuple[str, ...], space_dir: Path | None, references: tuple[str, ...]) -> None:
    """Publish pending submissions (moderation): their scored rows join results.parquet."""
    from eval_kit.leaderboard.space.pipeline import Leaderboard

    lb = Leaderboard(_settings(space_dir, references))
    for submission_id in submission_ids:
        record = lb.approve(submission_id)
        click.echo(f"{submission_id}: published ({record['model']}, {record['benchmark']})")


@leaderboard.command("reject")
@click.argument("submission_ids", nargs=-1, required=True)
@_space_options
@click.option("--reason", default="", help="Why (stored in the submission's record).")
def reject(submission_ids: tuple[str, ...], space_dir: Path | None, references: tuple[str, ...], reason: str) -> None:
    """Reject submissions; a published one also leaves results.parquet."""
    from eval_kit.leaderboard.space.pipeline import Leaderboard

    lb = Leaderboard(_settings(space_dir, references))
    for submission_id in submission_ids:
        lb.reject(submission_id, reason)
        click.echo(f"{submission_id}: rejected")


@leaderboard.command("rescore")
@click.argument("submission_ids", nargs=-1)
@_space_options
def rescore(submission_ids: tuple[str, ...], space_dir: Path | None, references: tuple[str, ...]) -> None:
    """Score stored submissions again from their stored files (all published, pending, invalid and failed ones
    when no id is given), e.g. after a scorer or parser change; published rows are replaced."""
    from eval_kit.leaderboard.space.pipeline import Leaderboard

    lb = Leaderboard(_settings(space_dir, references))
    for outcome in lb.rescore(list(submission_ids) or None):
        click.echo(f"{outcome.submission_id}: {outcome.status}: {outcome.lines[0] if outcome.lines else ''}")
