"""Paired significance tests between runs of any benchmark: the library behind `hazardkit compare BENCHMARK`.

Each run (a `hazardkit eval` run folder, or a predictions file) is scored by the benchmark's registered
`score_run` against ONE set of references, so every run is measured on the same samples of the same dataset
version; the per-sample vectors of its result are then compared pair by pair:
- per-sample correctness (`per_sample.correct`, and each `per_sample_tasks` vector the benchmark's board
  names for significance): exact McNemar;
- per-sample scores (`per_sample_scores`, e.g. BD-HazardVLM's action Jaccard): Wilcoxon signed-rank;
- Holm across the pairs of each task (statsmodels), as in the BD-HazardVLM paper, section 5.
Only comparable results are compared: a run folder made on another dataset revision or config than the
references is refused, and runs must answer the same samples (or, with `allow_missing`, are paired on the
samples all of them answered).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.scoring.significance import ALPHA, compare_task

PREDICTIONS = "predictions.jsonl"
BOOTSTRAP = 100  # the scorers' CIs are not reported here; the fewest resamples they accept


@dataclass(frozen=True)
class Run:
    """One run to compare: its name, predictions file and what its run folder recorded (if it is one)."""

    name: str
    path: Path
    predictions: Path
    config: str | None = None
    dataset_revision: str | None = None
    data: str | None = None


def named_runs(runs: tuple[str, ...] | list[str]) -> list[tuple[str, Path]]:
    """RUN arguments as (name, path): `NAME=PATH`, or a path whose folder name / file stem is the name."""
    named: list[tuple[str, Path]] = []
    for arg in runs:
        name, sep, path = arg.partition("=")
        if not sep or not name or "/" in name:
            name, path = (Path(arg).name if Path(arg).is_dir() else Path(arg).stem), arg
        if not name:
            raise BadInput(f"run {arg!r} has an empty name", fix="use NAME=PATH")
        from eval_kit.leaderboard.provenance import checked_text

        checked_text(name, "run name", required=True)  # printed to the terminal: no control or bidi characters
        if name in {n for n, _ in named}:
            raise BadInput(f"two runs are named {name!r}", fix="name them explicitly: NAME=PATH")
        named.append((name, Path(path)))
    if len(named) < 2:
        raise BadInput("need at least two runs to compare", fix="hazardkit compare BENCHMARK RUN_A RUN_B ...")
    return named


def load_run(name: str, path: Path) -> Run:
    """A run folder (its predictions.jsonl and what metadata.json / run.json record) or a predictions file."""
    from eval_kit.strictjson import read_json

    if not path.exists():
        raise BadInput("run not found", path=path, fix="pass a `hazardkit eval` run folder or a predictions file")
    if not path.is_dir():
        return Run(name, path, path)
    predictions = path / PREDICTIONS
    if not predictions.is_file():
        raise BadInput(f"run folder has no {PREDICTIONS}", path=path, fix="pass the --out folder of `hazardkit eval`")
    recorded: dict[str, Any] = {}
    for file in ("run.json", "metadata.json"):
        if (path / file).is_file():
            info = read_json(path / file, max_bytes=10 * 2**20)
            if isinstance(info, dict):
                identity = info.get("identity") if isinstance(info.get("identity"), dict) else {}
                for key in ("config", "dataset_revision", "data"):
                    value = info.get(key) or identity.get(key)
                    if value and not recorded.get(key):
                        recorded[key] = value
    return Run(name, path, predictions, config=_text(recorded.get("config")),
               dataset_revision=_text(recorded.get("dataset_revision")), data=_text(recorded.get("data")))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def significance_vectors(benchmark: str, result: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """{task: (test, {sample id: observation})} of one scored result, named as the benchmark's board names them."""
    from eval_kit.leaderboard.boards import board_for

    board = board_for(benchmark)
    per = result.get("per_sample") or {}
    ids = per.get("id") or []
    tasks: dict[str, tuple[str, dict[str, Any]]] = {}
    keys = [key for key, _ in board.significance] or ["correct"]
    for key in keys:
        values = per.get("correct") if key == "correct" else (result.get("per_sample_tasks") or {}).get(key)
        if isinstance(values, list) and len(values) == len(ids):
            name = board.headline.split(".")[0] if key == "correct" else key
            tasks[name] = ("mcnemar_exact", dict(zip(ids, values, strict=True)))
    for key, values in (result.get("per_sample_scores") or {}).items():
        if isinstance(values, list) and len(values) == len(ids):
            tasks[key] = ("wilcoxon_signed_rank", dict(zip(ids, values, strict=True)))
    return tasks


def compare_runs(benchmark: str, runs: list[tuple[str, Path]], *, references: str | Path | None = None,
                 config: str | None = None, dataset_revision: str | None = None, alpha: float = ALPHA,
                 allow_missing: bool = False) -> dict[str, Any]:
    """Score every run against the same references, then all pairwise tests per task, Holm within each task."""
    from eval_kit import registry

    bench = registry.get(benchmark)
    loaded = [load_run(name, path) for name, path in runs]
    folders = [r for r in loaded if r.path.is_dir()]
    config = config or _agreed([r.config for r in folders], "config")
    if references is None:
        data = _agreed([r.data for r in folders], "data")
        if data is None:
            raise BadInput("no references", field="--references",
                           fix="pass --references (a dataset folder, file or Hub id), or run folders that name them")
        references = data
    path, hub_revision = registry.resolve_data(references, config=config, revision=dataset_revision,
                                               field="--references")
    _check_config(bench.name, path, config)
    task = registry.make_task(bench.name, data=path, config=config, dataset_revision=hub_revision)
    revision = hub_revision or task.dataset_revision
    for run in folders:  # only comparable results are compared
        if run.config and config and run.config != config:
            raise BadInput(f"run {run.name!r} was made on config {run.config!r}, not {config!r}", path=run.path,
                           fix="compare runs of one config (--config NAME)")
        if run.dataset_revision and revision and run.dataset_revision != revision:
            raise BadInput(f"run {run.name!r} was made on dataset revision {run.dataset_revision!r}, the references "
                           f"are {revision!r}: only results of one dataset version are compared", path=run.path,
                           fix="compare runs of the same dataset revision, against those references")
    if not allow_missing:
        _check_complete(bench.name, path, config, loaded)
    score_run = bench.part("score_run")
    vectors: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {}
    for run in loaded:
        result = score_run(task, run.predictions, n_bootstrap=BOOTSTRAP, seed=0)
        vectors[run.name] = significance_vectors(bench.name, result)
    common = _paired_ids(bench.name, loaded, vectors)
    out: dict[str, Any] = {"benchmark": bench.name, "config": config, "dataset_revision": revision, "alpha": alpha,
                           "runs": {r.name: str(r.path) for r in loaded}, "num_samples": len(common), "tasks": {}}
    first = vectors[loaded[0].name]
    for name, (test, _) in first.items():
        if not all(name in v for v in vectors.values()):
            continue
        per_run = {run: [v[name][1][i] for i in common] for run, v in vectors.items()}
        out["tasks"][name] = [r.as_dict() for r in compare_task(name, per_run, test, alpha=alpha)]
    return out


def _agreed(values: list[str | None], what: str) -> str | None:
    found = sorted({v for v in values if v})
    if len(found) > 1:
        raise BadInput(f"the run folders name different {what}s ({', '.join(found)})",
                       fix="only runs of one dataset config and version are compared")
    return found[0] if found else None


def _check_config(benchmark: str, path: Path, config: str | None) -> None:
    """The --config asked for must exist in a dataset folder (data/<config>/)."""
    if config is None or not (path / "data").is_dir():
        return
    have = sorted(p.name for p in (path / "data").iterdir() if p.is_dir())
    if config not in have:
        raise BadInput(f"the references have no config {config!r} (have: {', '.join(have) or 'none'})",
                       path=path, field="--config", fix="pick one of its configs")


def _check_complete(benchmark: str, path: Path, config: str | None, runs: list[Run]) -> None:
    """Every run predicts every reference sample (the checker's own rule: SafeRelBench counts id + variant)."""
    from eval_kit.leaderboard.checker import checker_for
    from eval_kit.strictjson import iter_lines

    checker = checker_for(benchmark)
    reference_ids = checker.reference_ids(path, config)
    for run in runs:
        keys = {checker.line_key(obj): obj for _, obj in iter_lines(run.predictions)
                if isinstance(obj, dict) and isinstance(obj.get("id"), str)}
        missing = checker.missing(reference_ids, keys)
        if missing:
            shown = ", ".join(repr(m) for m in missing[:3]) + (" ..." if len(missing) > 3 else "")
            raise BadInput(f"run {run.name!r}: {len(missing)} of {len(reference_ids)} reference ids have no "
                           f"prediction ({shown})", path=run.predictions,
                           fix="predict every sample, or pass --allow-missing to pair on the samples all runs "
                               "answered")


def _paired_ids(benchmark: str, runs: list[Run], vectors: dict[str, Any]) -> list:
    """The sample ids every run has an outcome for, in the first run's order."""
    answered = {}
    for run in runs:
        tasks = vectors[run.name]
        if not tasks:
            raise BadInput(f"the {benchmark} result of run {run.name!r} has no per-sample outcomes", path=run.path)
        answered[run.name] = set(next(iter(tasks.values()))[1])
    common = set.intersection(*answered.values())
    if not common:
        raise BadInput("the runs have no answered sample in common", fix="compare runs of the same samples")
    order = list(next(iter(vectors[runs[0].name].values()))[1])
    return [i for i in order if i in common]


def render(result: dict[str, Any]) -> str:
    """The tests as a text table (rich)."""
    from eval_kit.textreport import render as render_text

    return render_text(lambda console: _draw(console, result), width=200)


def _draw(console: Any, result: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"{result['benchmark']} (config {result['config'] or 'default'}, revision "
                        f"{result['dataset_revision']}): paired tests, Holm-corrected within each task "
                        f"(alpha {result['alpha']}, {result['num_samples']} samples)"))
    for col in ("task", "test", "run A", "run B", "score A", "score B", "statistic", "p", "p (Holm)",
                "significant", "note"):
        table.add_column(col)
    for task, rows in result["tasks"].items():
        for r in rows:
            cells = (task, r["test"], r["run_a"], r["run_b"], f"{100 * r['score_a']:.1f}",
                     f"{100 * r['score_b']:.1f}", "-" if r["statistic"] is None else f"{r['statistic']:g}",
                     f"{r['p_value']:.4g}", f"{r['p_holm']:.4g}", "yes" if r["significant"] else "no", r["note"] or "")
            table.add_row(*(Text(c) for c in cells))  # Text: a run named "[bold]" is shown, not interpreted
    console.print(table)


def as_json(result: dict[str, Any]) -> str:
    return json.dumps(result, sort_keys=False)
