"""Paired significance tests between two or more BD-HazardVLM runs (paper section 5): the library behind
`hazardkit compare bd-hazardvlm`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval_kit.bd_hazardvlm import spec
from eval_kit.errors import BadInput
from eval_kit.textreport import render as render_text

# task -> (per-image vector from eval_kit.bd_hazardvlm.scoring.per_image, test)
COMPARE_TASKS: dict[str, tuple[str, str]] = {
    "category": ("category", "mcnemar_exact"),
    "timing": ("timing", "mcnemar_exact"),
    "severity": ("severity", "mcnemar_exact"),
    "actions_jaccard": ("actions_jaccard", "wilcoxon_signed_rank"),
}


def named_runs(runs: tuple[str, ...]) -> list[tuple[str, Path]]:
    """RUN arguments as (name, path): `NAME=PATH` or a path whose file stem is the name."""
    named: list[tuple[str, Path]] = []
    for arg in runs:
        name, sep, path = arg.partition("=")
        if not sep:
            name, path = Path(arg).stem, arg
        if not name:
            raise BadInput(f"run {arg!r} has an empty name", fix="use NAME=PATH")
        if name in {n for n, _ in named}:
            raise BadInput(f"two runs are named {name!r}", fix="name them explicitly: NAME=PATH")
        named.append((name, Path(path)))
    if len(named) < 2:
        raise BadInput("need at least two runs to compare", fix="hazardkit compare bd-hazardvlm RUN_A RUN_B ...")
    return named



def compare_files(references: Path, runs: list[tuple[str, Path]], *, alpha: float = 0.05,
                  allow_missing: bool = False) -> dict[str, Any]:
    """Per-image vectors of every run, then all pairwise tests per task, Holm-corrected within each task."""
    from eval_kit.bd_hazardvlm.scoring import per_image
    from eval_kit.bd_hazardvlm.submission import resolve_run
    from eval_kit.scoring.significance import compare_task

    refs = spec.load_annotations(references)
    vectors = {}
    for name, path in runs:
        run = resolve_run(refs, path, allow_missing=allow_missing)
        vectors[name] = per_image(run.references, run.predictions)
    out: dict[str, Any] = {"alpha": alpha, "runs": {n: str(p) for n, p in runs}, "num_samples": len(refs),
                           "tasks": {}}
    for task, (key, test) in COMPARE_TASKS.items():
        results = compare_task(task, {n: v[key] for n, v in vectors.items()}, test, alpha=alpha)
        out["tasks"][task] = [r.as_dict() for r in results]
    return out


def render(result: dict[str, Any]) -> str:
    return render_text(lambda console: _draw(console, result), width=200)


def _draw(console, result: dict[str, Any]) -> None:
    from rich.table import Table

    table = Table(title=f"Paired tests, Holm-corrected within each task (alpha {result['alpha']}, "
                        f"{result['num_samples']} images)")
    for col in ("task", "test", "run A", "run B", "score A", "score B", "statistic", "p", "p (Holm)",
                "significant", "note"):
        table.add_column(col)
    for task, rows in result["tasks"].items():
        for r in rows:
            table.add_row(task, r["test"], r["run_a"], r["run_b"], f"{100 * r['score_a']:.1f}",
                          f"{100 * r['score_b']:.1f}", "-" if r["statistic"] is None else f"{r['statistic']:g}",
                          f"{r['p_value']:.4g}", f"{r['p_holm']:.4g}", "yes" if r["significant"] else "no",
                          r["note"] or "")
    console.print(table)

