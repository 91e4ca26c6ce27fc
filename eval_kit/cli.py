"""The `hazardkit` command group: the evaluation commands, each imported only when it runs.

`builder/cli.py` adds the build commands (forge, reconstruct, publish, demo, ...) to this same group, so
eval_kit never imports builder. Per-benchmark subcommands (`score <benchmark>`, `compare <benchmark>`) come
from the registry (`eval_kit.registry`). Every command reports bad input as one line and exit code 2.
"""

from __future__ import annotations

import sys

import click

from eval_kit import __version__
from eval_kit.clikit import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, LazyGroup

__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_OK", "cli", "main"]

# top-level eval commands: name -> "module:attribute" (imported when the command runs or its help is shown)
EVAL_COMMANDS: dict[str, str] = {
    "eval": "eval_kit.commands.eval_run:eval_command",
    "validate": "eval_kit.commands.validate_submission:validate_command",
    "leaderboard": "eval_kit.commands.leaderboard_cmd:leaderboard",
    "export": "eval_kit.commands.export_cmd:export",
}


def _benchmark_commands(attribute: str) -> dict[str, str]:
    from eval_kit import registry

    return {b.cli_name: getattr(b, attribute) for b in registry.benchmarks() if getattr(b, attribute)}


@click.group(cls=LazyGroup, lazy=lambda: EVAL_COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hazardkit")
def cli() -> None:
    """hazardkit: build, run and score MovSafeBench, BD-HazardVLM and SafeRelBench.

    \b
    Evaluate:     hazardkit eval BENCHMARK --backend ... --model ... --out RUNDIR
    Score:        hazardkit score run RUNDIR | hazardkit score BENCHMARK --references REF --predictions PRED
    Exit codes:   0 ok, 1 internal error, 2 bad input (one line naming file, line, field and the fix).
    """


@cli.group(cls=LazyGroup, lazy=lambda: {"run": "eval_kit.commands.eval_score:score_run_command",
                                        **_benchmark_commands("score_command")})
def score() -> None:
    """Score a model's predictions against a benchmark's references.

    Predictions are JSON Lines keyed by `id`, each with `prediction` (a label) and/or `response`
    (raw model text, parsed with the benchmark's parser). Scores are fractions in [0, 1] with --json.
    `score run RUNDIR` scores a `hazardkit eval` run folder.
    """


def _compare_commands() -> dict[str, str]:
    """Every benchmark's compare command: its own when it declares one, else the generic one."""
    from eval_kit import registry

    return {b.cli_name: b.compare_command or f"eval_kit.commands.compare_cmd:COMMANDS.{b.name}"
            for b in registry.benchmarks()}


@cli.group(cls=LazyGroup, lazy=_compare_commands)
def compare() -> None:
    """Compare runs of one benchmark, config and dataset version with paired significance tests."""


def main(argv: list[str] | None = None) -> int:
    """Run the `hazardkit` group: evaluation commands, plus the build commands when builder.cli is imported
    (the console script builder.cli:main is this function after builder registered them)."""
    try:
        cli.main(args=argv, prog_name="hazardkit", standalone_mode=True)
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED:
            _exit_now(EXIT_INTERRUPTED)
        return int(exc.code or 0)
    return 0


EXIT_INTERRUPTED = 130


def _exit_now(code: int) -> None:
    """After Ctrl-C, once the command has cleaned up (answers logged, folder lock released): end the process
    without the interpreter's teardown, which on a busy machine took seconds (a final garbage collection)."""
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)

if __name__ == "__main__":
    sys.exit(main())
