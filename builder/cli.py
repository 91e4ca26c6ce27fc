"""The `hazardkit` console script: eval_kit's commands plus the build commands.

eval_kit never imports builder, so the build commands are added here to eval_kit's command group:
forge (HazardForge), sources (source adapters), reconstruct (BD-HazardVLM), saferel (sample validation),
publish (Hugging Face releases) and demo (the main job on embedded demo data).
"""

from __future__ import annotations

import sys

from eval_kit.cli import cli, main


def _register() -> None:
    from builder.demo import demo_command
    from builder.hazardforge.commands import forge
    from builder.publish.command import publish_command
    from builder.reconstruct_command import reconstruct
    from builder.saferel_commands import saferel
    from builder.sources.cli import sources

    for command, name in ((forge, "forge"), (sources, "sources"), (reconstruct, "reconstruct"),
                          (saferel, "saferel"), (publish_command, "publish"), (demo_command, "demo")):
        cli.add_command(command, name)


_register()


__all__ = ["cli", "main"]  # main runs `cli`, which now holds the build commands too

if __name__ == "__main__":
    sys.exit(main())
