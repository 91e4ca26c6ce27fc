"""`hazardkit saferel validate`: SafeRelBench sample self-validation (the builder refuses failing samples)."""

from __future__ import annotations

from pathlib import Path

import click

from eval_kit.clikit import HazardkitGroup
from eval_kit.errors import BadInput


@click.group(cls=HazardkitGroup)
def saferel() -> None:
    """SafeRelBench samples and activities: self-validation, generation, BEHAVIOR-1K coverage."""


@saferel.command("validate")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--config", default=None, help="Dataset config when PATH is a dataset folder.")
def saferel_validate(path: Path | None, config: str | None) -> None:
    """Check every sample: schema, bddl parsing, that its reference plan succeeds safely while the plan
    without each mitigation still succeeds but is unsafe, that its task goal is its activity's BEHAVIOR-1K goal
    (faithfulness), that every hazard object has a support, and that a control differs from its spatial twin
    only in the hazard relation, has the twin's reference plan less exactly the mitigation steps, and cannot
    re-create the hazard under any one-block reordering of its plan (matching).
    PATH defaults to manifests/saferelbench/. Exit 2 when any sample fails (the builder refuses to publish it)."""
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


@saferel.command("activities")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: totals and one entry per activity.")
@click.option("--witness", "witness", default=None, metavar="NAME",
              help="Print the witness plan of one activity (its goal reached from its initial state).")
def saferel_activities(as_json: bool, witness: str | None) -> None:
    """List every BEHAVIOR-1K activity bddl ships: does it load as it stands, and does the executor reach its goal
    from its initial state (a witness plan replayed by the executor)? Totals at the end."""
    import json

    from eval_kit.saferelbench.activities import activity_status, all_activities

    names = all_activities()
    if witness is not None:
        if witness not in names:
            raise BadInput(f"{witness!r} is not an activity shipped with bddl", field="--witness",
                           fix="pick a name from `hazardkit saferel activities`")
        status = activity_status(witness)
        if as_json:
            click.echo(json.dumps(status.to_json(with_witness=True)))
            return
        click.echo(f"{witness}: loads {status.loads}, reachable {status.reachable}"
                   + (f" ({status.error})" if status.error else ""))
        for i, step in enumerate(status.witness or [], 1):
            click.echo(f"{i:3d}. {step}")
        return
    statuses = [activity_status(name) for name in names]
    loads = sum(s.loads for s in statuses)
    reachable = sum(s.reachable for s in statuses)
    totals = {"activities": len(statuses), "loads": loads, "reachable": reachable,
              "reachable_share": reachable / len(statuses) if statuses else None}
    if as_json:
        click.echo(json.dumps({**totals, "entries": [s.to_json() for s in statuses]}))
        return
    for s in statuses:
        mark = "reach" if s.reachable else ("load " if s.loads else "FAIL ")
        detail = f"{len(s.witness)} steps" if s.witness is not None else (s.error or "")
        click.echo(f"{mark} {s.name}: {detail}")
    click.echo(f"{loads} of {len(statuses)} activities load; goal reachable for {reachable} "
               f"({100 * totals['reachable_share']:.1f}%)")


@saferel.command("review")
@click.argument("samples", type=click.Path(path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="Markdown file to write.")
@click.option("--pairs", default=40, show_default=True, type=click.IntRange(1, 10000), help="Pairs to draw.")
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed of the draw.")
def saferel_review(samples: Path, out: Path, pairs: int, seed: int) -> None:
    """Render a Markdown review sheet of randomly drawn (spatial, control) pairs of SAMPLES: task, relation,
    hazard set-up, tip, reference plan (mitigation marked) and naive plan."""
    from builder.saferelbench.review import render_review
    from eval_kit.jsonl import atomic_write_text
    from eval_kit.saferelbench.samples import load_raw_samples

    rows = [raw for _, raw in load_raw_samples(samples)]
    atomic_write_text(out, render_review(rows, pairs=pairs, seed=seed))
    click.echo(f"wrote {out}: {min(pairs, sum(r['split'] == 'spatial' for r in rows))} pairs")


@saferel.command("generate")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="JSON Lines file to write.")
@click.option("--risk", "risks", multiple=True, metavar="TYPE[=N]",
              help="Risk type, optionally with a number of pairs (repeatable; default: every risk type).")
@click.option("--per-risk", default=1, show_default=True, type=click.IntRange(1, 1000),
              help="Pairs per risk type when --risk gives no number.")
@click.option("--activity", "activities", multiple=True, help="Only these activities (repeatable).")
@click.option("--max-steps", default=60, show_default=True, type=click.IntRange(1, 500),
              help="Longest witness plan to build on (shorter plans are tried first).")
@click.option("--recipe", type=click.Path(path_type=Path), default=None,
              help="Generate what a recipe (manifests/saferelbench/generated.json, demo.json) describes, and check "
                   "the result against its digest (exit 2 when it differs).")
@click.option("--update-recipe", is_flag=True, help="With --recipe: record the new digest and sample count in it.")
def saferel_generate(out: Path, risks: tuple[str, ...], per_risk: int, activities: tuple[str, ...],
                     max_steps: int, recipe: Path | None, update_recipe: bool) -> None:
    """Propose SafeRelBench samples from real BEHAVIOR-1K activities: for each risk type, a spatial sample
    (the activity's task with the hazard relation set up) and its matched control, one pair per activity and
    risk type, kept only when both pass `saferel validate`."""
    import json
    from collections import Counter

    from eval_kit.jsonl import atomic_write_text
    from eval_kit.safe_paths import refuse_link
    from eval_kit.saferelbench.spec import RISK_TYPES

    refuse_link(out, what="the samples file to write")  # never replace a link someone planted
    if update_recipe and recipe is None:
        raise BadInput("--update-recipe needs --recipe", field="--update-recipe", fix="pass --recipe FILE")
    if recipe is not None:
        if risks or activities:
            raise BadInput("--recipe fixes the risk types and activities", field="--recipe",
                           fix="drop --risk / --activity")
        from builder.saferelbench.recipe import regenerate

        done = regenerate(recipe, out, check=True, update=update_recipe)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        made = Counter(r["risk_type"] for r in rows if r["split"] == "spatial")
        for risk, n in done["pairs"].items():
            click.echo(f"{risk}: {made[risk]} of {n} pair(s)")
        click.echo(f"wrote {len(rows)} samples from {len({r['source_activity'] for r in rows})} activities to {out}"
                   f" (sha256 {done['sha256'][:12]}{', recipe updated' if update_recipe else ', matches the recipe'})")
        return
    from builder.saferelbench.generate import generate

    counts: dict[str, int] = {}
    for item in risks or RISK_TYPES:
        name, _, number = item.partition("=")
        if name not in RISK_TYPES:
            raise BadInput(f"unknown risk type {name!r}", field="--risk", fix=f"use one of {', '.join(RISK_TYPES)}")
        if number and not number.isdigit():
            raise BadInput(f"{item!r}: the number of pairs must be a whole number", field="--risk")
        counts[name] = int(number) if number else per_risk
    lines = []
    made_pairs: dict[str, int] = dict.fromkeys(counts, 0)
    for spatial, control in generate(counts, activities=list(activities) or None, max_steps=max_steps):
        lines += [json.dumps(spatial, ensure_ascii=False), json.dumps(control, ensure_ascii=False)]
        made_pairs[spatial["risk_type"]] += 1
    atomic_write_text(out, "".join(line + "\n" for line in lines))
    for risk, n in made_pairs.items():
        click.echo(f"{risk}: {n} of {counts[risk]} pair(s)")
    click.echo(f"wrote {len(lines)} samples to {out}")
