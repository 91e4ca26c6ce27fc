"""The `hazardkit` console script: eval_kit's commands plus the build commands (forge, reconstruct, publish, demo)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from eval_kit.cli import cli


@cli.command()
def demo() -> None:
    """Run the main job end to end on embedded demo data (synthetic scenes, never the benchmark).

    Not complete yet: it prints the plan of what it will do.
    """
    steps = [
        "render synthetic road and sidewalk scenes with known vanishing point and safe action",
        "HazardForge: plan jobs, composite hazards with the CPU editor, quality-check them",
        "publish the `demo` configs of movsafebench/, bd_hazardvlm/ and saferelbench/",
        "load them with datasets.load_dataset and run the baseline models on all three benchmarks",
        "score the runs and render the leaderboard page",
    ]
    click.echo("hazardkit demo will:")
    for number, step in enumerate(steps, start=1):
        click.echo(f"  {number}. {step}")
    click.echo("Available now: `hazardkit score movsafebench` (see `hazardkit score movsafebench --help`).")


from builder.hazardforge.commands import forge  # noqa: E402  (HazardForge: plan, preview, synthetic)

cli.add_command(forge)
@cli.group()
def saferel() -> None:
    """SafeRelBench samples: self-validation before publishing."""


@saferel.command("validate")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--config", default=None, help="Dataset config when PATH is a dataset folder.")
def saferel_validate(path: Path | None, config: str | None) -> None:
    """Check every sample: schema, bddl parsing, and that its reference plan succeeds safely while the plan
    without each mitigation still succeeds but is unsafe. PATH defaults to manifests/saferelbench/.
    Exit 2 when any sample fails (the builder refuses to publish it)."""
    from builder.saferel_samples import DEMO_DIR, validate_samples
    from eval_kit.errors import BadInput
    from eval_kit.saferel.samples import load_samples

    target = path or DEMO_DIR
    checks = validate_samples(load_samples(target, config))
    for check in checks:
        details = "".join(f"\n     {problem}" for problem in check.problems)
        click.echo(f"{'ok  ' if check.ok else 'FAIL'} {check.sample_id}{details}")
    bad = [c.sample_id for c in checks if not c.ok]
    if bad:
        raise BadInput(f"{len(bad)} sample(s) fail self-validation: {', '.join(sorted(set(bad)))}", path=target)
    click.echo(f"{len(checks)} sample(s) valid")


def main(argv: list[str] | None = None) -> int:
    try:
        cli.main(args=argv, prog_name="hazardkit", standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
