"""`hazardkit demo`: the main job end to end on embedded demo data, printing where each artefact is.

synthetic scenes -> HazardForge (compositing editor, heuristic check) -> publish the `demo` configs ->
`datasets.load_dataset` -> baseline runs on every benchmark -> scores -> leaderboard page.

Every step goes through the same commands a user types (`hazardkit publish`, `hazardkit eval`, ...), in
process, so the demo exercises the real code paths. Everything it writes outside the dataset folders
lives under `out/demo/` (git-ignored); re-running resumes finished steps.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

DEMO_VERSION = "0.1.0"
DEMO_DATE = "2026-11-30"


@dataclass
class DemoStep:
    name: str
    run: Callable[[], list[str]]  # returns the artefacts it made (paths, counts) to print


@dataclass
class Demo:
    root: Path
    echo: Callable[[str], None] = click.echo
    results: list[Path] = field(default_factory=list)
    # dataset folders by benchmark name, where they differ from the registry's (relative to the working
    # directory, like `make demo`)
    data: dict[str, Path] = field(default_factory=dict)

    def cli(self, *args: object) -> None:
        """Run one `hazardkit` command in process; a failure stops the demo with that command's message."""
        from builder.cli import cli

        argv = [str(a) for a in args]
        try:
            code = cli.main(args=argv, prog_name="hazardkit", standalone_mode=False)
        except click.exceptions.Exit as exc:
            code = exc.exit_code
        if isinstance(code, int) and code != 0:  # the command already printed its one-line error
            raise click.ClickException(f"demo stopped: `hazardkit {' '.join(argv)}` exited {code}")

    def baselines(self, benchmark: str, models: list[str], extra: tuple[str, ...] = ()) -> list[str]:
        made = []
        for model in models:
            run = self.root / "runs" / f"{benchmark}-{model.replace(':', '-')}"
            self.cli("eval", benchmark, "--backend", "baseline", "--model", model, "--config", "demo",
                     "--data", self.folder(benchmark), "--out", run, "--no-progress", *extra)
            self.cli("score", "run", run)
            self.results.append(run / "scores.json")
            score = json.loads((run / "scores.json").read_text())
            made.append(f"{benchmark} {model}: {run}/scores.json ({_headline(score)})")
        return made

    # ---- leaderboard -------------------------------------------------------------------------------
    def leaderboard(self) -> list[str]:
        table = self.root / "leaderboard" / "results.parquet"
        self.cli("leaderboard", "add", *self.results, "--table", table)
        out = self.root / "leaderboard"
        self.cli("leaderboard", "render", "--table", table, "--out", out)
        return [f"results table: {table}", f"page: {out / 'index.html'}", f"markdown: {out / 'leaderboard.md'}"]

    def folder(self, benchmark: str) -> Path:
        """The dataset folder the demo publishes a benchmark into (relative, like `make demo`)."""
        from eval_kit import registry

        bench = registry.get(benchmark)
        return self.data.get(bench.name, Path(bench.dataset_folder or bench.name))

    def steps(self) -> list[DemoStep]:
        """Each registered benchmark's demo steps (its builder folder's `demo_steps`), then the leaderboard."""
        from eval_kit import registry

        steps: list[DemoStep] = []
        for bench in registry.benchmarks():
            if bench.demo:
                steps += registry.resolve(bench.demo)(self)
        return [*steps, DemoStep("Leaderboard: add results, render Markdown + HTML + plots", self.leaderboard)]

    def run(self) -> None:
        start = time.perf_counter()
        steps = self.steps()
        for number, step in enumerate(steps, start=1):
            t0 = time.perf_counter()
            self.echo(f"[{number}/{len(steps)}] {step.name}")
            for line in step.run():
                self.echo(f"    {line}")
            self.echo(f"    ({time.perf_counter() - t0:.1f} s)")
        self.echo(f"demo finished in {time.perf_counter() - start:.1f} s; everything else is under {self.root}/")
        for line in self.next_steps():
            self.echo(line)

    def next_steps(self) -> list[str]:
        """The three commands a newcomer runs next (evaluate, score, submit), on paths the demo just made."""
        import sys

        bench = "movsafebench"
        run = next((r.parent for r in self.results if r.parent.name.startswith(f"{bench}-")), None)
        if run is None:
            return []
        data = self.folder(bench)
        exe = "hazardkit"
        venv_bin = Path(sys.prefix) / "bin"
        if (venv_bin / "hazardkit").exists() and Path(sys.prefix).resolve() != Path(sys.base_prefix).resolve():
            try:  # not activated: say where the command is
                exe = str((venv_bin / "hazardkit").resolve().relative_to(Path.cwd().resolve()))
            except ValueError:
                exe = str(venv_bin / "hazardkit")
        mine = self.root / "runs" / "my-model"
        return [
            "next: evaluate your model on the demo data, score the run, check it for the leaderboard:",
            f"  {exe} eval {bench} --data {data} --config demo --backend transformers --model MODEL_ID_OR_FOLDER "
            f"--out {mine}",
            f"  {exe} score run {run}",
            f"  {exe} validate {bench} --references {data} --config demo --predictions {run / 'predictions.jsonl'} "
            f"--metadata {run / 'metadata.json'}",
        ]


def _headline(score: dict[str, Any]) -> str:
    """The leaderboard's ranking metric of a scored run, e.g. "Category accuracy 10.0%"."""
    from eval_kit.leaderboard.boards import board_for, lookup

    board = board_for(str(score.get("benchmark", "")).replace("-", "_"))
    value = lookup(score, board.headline)
    return f"{board.headline_label} {100 * value:.1f}%" if isinstance(value, (int, float)) else "scored"


@click.command("demo")
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("out") / "demo", show_default=True,
              help="Where runs, scores and the leaderboard go (dataset folders are the repo's own).")
def demo_command(out: Path) -> None:
    """Run the main job end to end on embedded demo data (synthetic scenes, never the benchmark).

    \b
    1. synthetic road / sidewalk scenes -> HazardForge plan -> compositing editor -> heuristic check
    2. publish the `demo` configs and load them with datasets.load_dataset
    3. baseline runs (random, majority, fixed answer) on every benchmark, scored
    4. the leaderboard: results table, Markdown, static HTML page with plots
    """
    Demo(out).run()
