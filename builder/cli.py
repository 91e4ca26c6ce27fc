"""The `hazardkit` console script: eval_kit's commands plus the build commands.

eval_kit never imports builder, so the build commands are added here to eval_kit's command group, lazily:
`publish` and `demo` (generic), and each benchmark's own build commands named in its registry entry
(MovSafeBench: forge, sources; BD-HazardVLM: reconstruct; SafeRelBench: saferel).
"""

from __future__ import annotations

import sys

from eval_kit.cli import EVAL_COMMANDS, cli, main

BUILD_COMMANDS: dict[str, str] = {
    "publish": "builder.publish.command:publish_command",
    "demo": "builder.demo:demo_command",
}


def _build_commands() -> dict[str, str]:
    from eval_kit import registry

    commands = dict(BUILD_COMMANDS)
    for bench in registry.benchmarks():
        commands.update(dict(bench.build_commands))
    return commands


cli.add_lazy(_build_commands)

__all__ = ["EVAL_COMMANDS", "cli", "main"]  # main runs `cli`, which now holds the build commands too

if __name__ == "__main__":
    sys.exit(main())
