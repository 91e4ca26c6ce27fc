"""`hazardkit eval` options that a paper preset can fill: checked and merged before anything heavy loads.

The user's typed options win over the preset's, each difference printed as a note on stderr, so a run that
is not quite the paper's says so. BENCHMARK, --model, --backend and --out are required unless the preset
gives them (it gives all but --out).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from eval_kit.errors import BadInput


def resolve_run_options(ctx: click.Context, *, benchmark: str | None, preset: str | None, out: Path | None,
                        values: dict[str, Any]) -> dict[str, Any]:
    """The options after the preset (if any); `preset` in the result is what metadata.json records."""
    from eval_kit.runners import presets

    if benchmark is None:
        raise BadInput("no benchmark given", field="BENCHMARK",
                       fix="hazardkit eval BENCHMARK ... (or `hazardkit eval --list-presets`)")
    chosen = presets.get(preset, benchmark) if preset is not None else None
    resolved = dict(values)
    if chosen is not None:
        explicit = {name for name in values if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE}
        resolved, notes = presets.resolve(chosen, values, explicit)
        for note in notes:
            click.echo(f"note: {note}", err=True)
    for name, flag in (("model", "--model"), ("backend", "--backend")):
        if not resolved.get(name):
            raise BadInput(f"{flag} is required", field=flag, fix=f"pass {flag} (or a --preset that sets it)")
    if out is None:
        raise BadInput("--out is required", field="--out", fix="pass --out RUNDIR (a new folder, or a run to resume)")
    resolved["preset"] = chosen.record() if chosen is not None else None
    return resolved
