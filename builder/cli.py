"""The `hazardkit` console script: eval_kit's commands plus the build commands (forge, reconstruct, publish, demo)."""

from __future__ import annotations

import sys

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


def _register_publish() -> None:
    from builder.publish.command import publish_command

    cli.add_command(publish_command, "publish")


_register_publish()


def main(argv: list[str] | None = None) -> int:
    try:
        cli.main(args=argv, prog_name="hazardkit", standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
