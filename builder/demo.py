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
    # the dataset folders the demo publishes into (relative to the working directory, like `make demo`)
    data: dict[str, Path] = field(default_factory=lambda: {"movsafebench": Path("movsafebench"),
                                                           "bd-hazardvlm": Path("bd_hazardvlm"),
                                                           "saferelbench": Path("saferelbench")})

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

    # ---- MovSafeBench ------------------------------------------------------------------------------
    def movsafebench_data(self) -> list[str]:
        import datasets

        self.cli("publish", "movsafebench", "--config", "demo", "--version", DEMO_VERSION, "--date", DEMO_DATE,
                 "--notes", "demo config: HazardForge on synthetic scenes", "--out", "movsafebench")
        ds = datasets.load_dataset("movsafebench", "demo", split="test")
        return ["forge run: out/demo/forge/run (hazardkit forge status out/demo/forge/run)",
                f"dataset: movsafebench/data/demo/ ({len(ds)} rows; load_dataset('movsafebench', 'demo'))",
                "card: movsafebench/README.md, figure movsafebench/assets/samples_demo.png"]

    def baselines(self, benchmark: str, models: list[str], extra: tuple[str, ...] = ()) -> list[str]:
        made = []
        for model in models:
            run = self.root / "runs" / f"{benchmark}-{model.replace(':', '-')}"
            self.cli("eval", benchmark, "--backend", "baseline", "--model", model, "--config", "demo",
                     "--data", self.data[benchmark], "--out", run, "--no-progress", *extra)
            self.cli("score", "run", run)
            self.results.append(run / "scores.json")
            score = json.loads((run / "scores.json").read_text())
            made.append(f"{benchmark} {model}: {run}/scores.json ({_headline(score)})")
        return made

    # ---- BD-HazardVLM ------------------------------------------------------------------------------
    def bd_data(self) -> list[str]:
        import datasets

        folder = self.data["bd-hazardvlm"]
        self.cli("reconstruct", "bd-hazardvlm", "--demo", "--out", folder)
        self.cli("publish", "bd-hazardvlm", "--config", "demo_annotations", "--version", DEMO_VERSION,
                 "--date", DEMO_DATE, "--notes", "demo_annotations config: the 20 demo records and their image "
                 "manifest", "--out", folder)
        ds = datasets.load_dataset(str(folder), "demo", split="test")
        return [f"reconstructed (images kept local): {folder}/data/demo/ ({len(ds)} rows; "
                f"load_dataset('bd_hazardvlm', 'demo'))",
                f"published annotations: {folder}/data/demo_annotations/, card {folder}/README.md"]

    # ---- SafeRelBench ------------------------------------------------------------------------------
    def saferel_data(self) -> list[str]:
        import datasets

        folder = self.data["saferelbench"]
        self.cli("publish", "saferelbench", "--config", "demo", "--version", DEMO_VERSION, "--date", DEMO_DATE,
                 "--notes", "demo config: 15 hand-written samples that pass self-validation", "--out", folder)
        ds = datasets.load_dataset(str(folder), "demo", split="test")
        return [f"dataset: {folder}/data/demo/ ({len(ds)} samples; load_dataset('saferelbench', 'demo'))"]

    # ---- leaderboard -------------------------------------------------------------------------------
    def leaderboard(self) -> list[str]:
        table = self.root / "leaderboard" / "results.parquet"
        self.cli("leaderboard", "add", *self.results, "--table", table)
        out = self.root / "leaderboard"
        self.cli("leaderboard", "render", "--table", table, "--out", out)
        return [f"results table: {table}", f"page: {out / 'index.html'}", f"markdown: {out / 'leaderboard.md'}"]

    def steps(self) -> list[DemoStep]:
        return [
            DemoStep("MovSafeBench: synthetic scenes -> HazardForge -> publish demo config -> load_dataset",
                     self.movsafebench_data),
            DemoStep("MovSafeBench: baseline runs and scores",
                     lambda: self.baselines("movsafebench", ["random", "majority", "fixed:straight"])),
            DemoStep("BD-HazardVLM: reconstruct the demo images from the manifest, publish the annotations",
                     self.bd_data),
            DemoStep("BD-HazardVLM: baseline runs and scores",
                     lambda: self.baselines("bd-hazardvlm", ["random", "majority", "fixed:no_major_hazard"])),
            DemoStep("SafeRelBench: validate and publish the demo samples", self.saferel_data),
            DemoStep("SafeRelBench: baseline plans (empty, reference minus mitigations, reference oracle)",
                     lambda: self.baselines("saferelbench", ["fixed:empty", "fixed:unmitigated",
                                                             "fixed:reference"])),
            DemoStep("Leaderboard: add results, render Markdown + HTML + plots", self.leaderboard),
        ]

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
