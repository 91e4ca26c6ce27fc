"""Evaluation commands of the `hazardkit` console script (score, and later eval, validate, compare, leaderboard).

`builder/cli.py` adds the build commands (forge, reconstruct, publish, demo) to this same group, so
eval_kit never imports builder. Every command reports bad input as one line and exit code 2.
"""

from __future__ import annotations

import os
import sys

import click

from eval_kit import __version__
from eval_kit.errors import BadInput

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


class HazardkitGroup(click.Group):
    """A click group that turns BadInput into `error: ...` + exit 2, and crashes into one line + exit 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BadInput as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        except Exception as exc:
            if os.environ.get("HAZARDKIT_DEBUG"):
                raise
            click.echo(
                f"internal error: {type(exc).__name__}: {exc} (set HAZARDKIT_DEBUG=1 for a traceback)",
                err=True,
            )
            ctx.exit(EXIT_INTERNAL)


@click.group(cls=HazardkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hazardkit")
def cli() -> None:
    """hazardkit: build, run and score MovSafeBench, BD-HazardVLM and SafeRelBench.

    \b
    Scoring:      hazardkit score movsafebench --references REF --predictions PRED [--json]
    Exit codes:   0 ok, 1 internal error, 2 bad input (one line naming file, line, field and the fix).
    """


@cli.group(cls=HazardkitGroup)
def score() -> None:
    """Score a model's predictions against a benchmark's references.

    Predictions are JSON Lines keyed by `id`, each with `prediction` (a label) and/or `response`
    (raw model text, parsed with the benchmark's parser). Scores are fractions in [0, 1] with --json.
    """


def _register() -> None:
    from eval_kit.commands.score_movsafebench import score_movsafebench

    score.add_command(score_movsafebench, "movsafebench")
    from eval_kit.commands.score_saferelbench import score_saferelbench

    score.add_command(score_saferelbench, "saferelbench")

    from eval_kit.commands.compare_bd_hazardvlm import compare
    from eval_kit.commands.score_bd_hazardvlm import score_bd_hazardvlm

    score.add_command(score_bd_hazardvlm, "bd-hazardvlm")
    cli.add_command(compare, "compare")

    from eval_kit.commands.eval_run import eval_command
    from eval_kit.commands.eval_score import score_run_command

    cli.add_command(eval_command, "eval")
    score.add_command(score_run_command, "run")

    from eval_kit.commands.validate_submission import validate_command

    cli.add_command(validate_command, "validate")

    from eval_kit.commands.leaderboard_cmd import leaderboard

    cli.add_command(leaderboard, "leaderboard")


_register()


def main(argv: list[str] | None = None) -> int:
    """Run the `hazardkit` group: evaluation commands, plus the build commands when builder.cli is imported
    (the console script builder.cli:main is this function after builder registered them)."""
    try:
        cli.main(args=argv, prog_name="hazardkit", standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
