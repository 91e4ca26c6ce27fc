"""`hazardkit saferel validate`: SafeRelBench sample self-validation (the builder refuses failing samples)."""

from __future__ import annotations

from pathlib import Path

import click

from eval_kit.clikit import HazardkitGroup
from eval_kit.errors import BadInput


@click.group(cls=HazardkitGroup)
def saferel() -> None:
    """SafeRelBench samples: self-validation before publishing."""


@saferel.command("validate")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--config", default=None, help="Dataset config when PATH is a dataset folder.")
def saferel_validate(path: Path | None, config: str | None) -> None:
    """Check every sample: schema, bddl parsing, and that its reference plan succeeds safely while the plan
    without each mitigation still succeeds but is unsafe. PATH defaults to manifests/saferelbench/.
    Exit 2 when any sample fails (the builder refuses to publish it)."""
    from builder.saferelbench.samples import DEMO_DIR, validate_samples
    from eval_kit.saferelbench.samples import load_samples

    target = path or DEMO_DIR
    checks = validate_samples(load_samples(target, config))
    for check in checks:
        details = "".join(f"\n     {problem}" for problem in check.problems)
        click.echo(f"{'ok  ' if check.ok else 'FAIL'} {check.sample_id}{details}")
    bad = [c.sample_id for c in checks if not c.ok]
    if bad:
        raise BadInput(f"{len(bad)} sample(s) fail self-validation: {', '.join(sorted(set(bad)))}", path=target)
    click.echo(f"{len(checks)} sample(s) valid")
