"""The one registry of benchmarks: what each is called and where each of its parts lives.

A benchmark is one `Benchmark` object, declared in its own eval-side package (`eval_kit/<name>/__init__.py`)
and listed once in `BUILTIN` below. Every generic part of the kit (runner harness, `score`, `validate`,
leaderboard, `evaluate` loading, publishing, the demo) looks benchmarks up here and never branches on a
name. Parts are named as `"module:attribute"` strings and imported on first use, so listing the benchmarks
is cheap and `eval_kit` never imports `builder` (the builder-side parts are strings only `builder` resolves).

Adding a fourth benchmark: its two folders (`eval_kit/<name>/`, `builder/<name>/`) and one line, either in
`BUILTIN`, a `register(Benchmark(...))` call from your own package, or its package named in the environment
variable `HAZARDKIT_BENCHMARKS` (comma-separated; what a leaderboard Space's scoring worker also reads).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

# The eval-side packages of the built-in benchmarks; each defines `BENCHMARK`.
BUILTIN: tuple[str, ...] = ("eval_kit.movsafebench", "eval_kit.bd_hazardvlm", "eval_kit.saferelbench")


def resolve(ref: str) -> Any:
    """The object named by `"package.module:attribute"` (imported now)."""
    module, _, attribute = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attribute.split(".") if attribute else ():
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Benchmark:
    """Everything the generic kit needs to know about one benchmark, by reference.

    `name` is the Python spelling (also the dataset folder's and the `evaluate` module's name); the CLI
    spelling replaces `_` with `-`; both are accepted wherever a benchmark name is taken.
    """

    name: str
    title: str
    package: str  # eval-side package: spec, task, parser, scoring, report, checker, board, metric, schemas
    task: str  # Task subclass (the runner's view: samples, prompts, parser)
    score_run: str  # (task, predictions_path, n_bootstrap=, seed=) -> result dict with per_sample
    reference_loader: str  # (path, config) -> {id: reference row}
    scorer: str  # (references, predictions, **options) -> the `score` command's JSON result
    report: str  # (result) -> text tables
    board: str  # () -> leaderboard Board
    checker: str  # () -> SubmissionChecker for `validate`
    score_command: str  # click command for `hazardkit score <cli name>`
    compare_command: str = ""  # click command for `hazardkit compare <cli name>` (paired tests between runs)
    citation: str = ""  # BibTeX, used by the `evaluate` module and the dataset card
    publisher: str = ""  # builder side: () -> Publisher for `hazardkit publish`
    build_commands: tuple[tuple[str, str], ...] = ()  # builder side: (top-level command name, click command)
    eval_commands: tuple[tuple[str, str], ...] = ()  # extra top-level eval commands (e.g. `compare`)
    demo: str = ""  # builder side: (DemoContext) -> list of DemoStep
    variants: tuple[str, ...] = ()  # prompt variants; the first is the default
    has_images: bool = True  # whether prompts carry images (False: `--text-only` changes nothing)
    takes_images: bool = False  # whether `eval --images DIR` (an image folder beside JSONL annotations) applies
    dataset_folder: str = ""  # default local dataset folder (relative to the working directory; default: name)
    hub_id: str = ""  # Hugging Face Hub dataset repo id (ORG/NAME) a release is pushed to (`publish --push`)
    lmms_eval: str = ""  # its lmms-eval task (an eval_kit.lmms_export.LmmsTask), for `hazardkit export lmms-eval`
    fallback_data: str = ""  # used when that folder has no data/ (SafeRelBench: the checkout's demo samples)
    # formatting-retry policies its task offers (`eval --retry`); the first is the default; () = no retry
    retry_policies: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def cli_name(self) -> str:
        return self.name.replace("_", "-")

    @property
    def aliases(self) -> tuple[str, str]:
        return self.name, self.cli_name

    def part(self, attribute: str) -> Any:
        """Import and return one of the referenced parts (`part("task")` -> the Task class)."""
        ref = getattr(self, attribute)
        if not ref:
            raise BadInput(f"{self.cli_name} has no {attribute.replace('_', ' ')}", field="BENCHMARK")
        return resolve(ref)

    def metric_path(self) -> Path:
        """The `evaluate` module's file (`evaluate.load(str(path))` works from an installed wheel)."""
        return Path(resolve(self.package).__file__).parent / "metric" / f"{self.name}.py"

    def default_data(self) -> Path:
        """The local dataset folder when `--data` is not given: `./<dataset_folder>` if it exists."""
        folder = Path(self.dataset_folder or self.name)
        if self.fallback_data and not (folder / "data").is_dir() and Path(self.fallback_data).exists():
            return Path(self.fallback_data)
        if not folder.is_dir():
            raise BadInput(f"no dataset given and no folder ./{folder} here", field="--data",
                           fix=f"pass --data PATH (a {self.title} dataset folder, Parquet or JSONL file)")
        return folder


_REGISTRY: dict[str, Benchmark] = {}
_loaded = False


def register(benchmark: Benchmark) -> None:
    """Make a benchmark known to every command; a later registration under the same name replaces it."""
    _REGISTRY[benchmark.name] = benchmark


def unregister(name: str) -> None:
    _REGISTRY.pop(name.replace("-", "_"), None)


PLUGINS_ENV = "HAZARDKIT_BENCHMARKS"  # comma-separated packages, each defining BENCHMARK, registered after BUILTIN


def _load_builtin() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    plugins = [p.strip() for p in os.environ.get(PLUGINS_ENV, "").split(",") if p.strip()]
    for package in (*BUILTIN, *plugins):
        try:
            bench = importlib.import_module(package).BENCHMARK
        except (ImportError, AttributeError) as exc:
            raise BadInput(f"cannot load benchmark package {package!r} ({exc})", field=PLUGINS_ENV,
                           fix="name importable packages that define BENCHMARK") from None
        _REGISTRY.setdefault(bench.name, bench)


def benchmarks() -> Iterator[Benchmark]:
    """Every registered benchmark, built-ins first, in registration order."""
    _load_builtin()
    return iter(list(_REGISTRY.values()))


def names() -> list[str]:
    return [b.name for b in benchmarks()]


def get(name: str) -> Benchmark:
    """By Python spelling (`bd_hazardvlm`) or CLI spelling (`bd-hazardvlm`); unknown names are bad input."""
    _load_builtin()
    key = str(name).replace("-", "_")
    if key not in _REGISTRY:
        known = ", ".join(b.cli_name for b in _REGISTRY.values())
        raise BadInput(f"unknown benchmark {name!r}", field="BENCHMARK", fix=f"use one of {known}")
    return _REGISTRY[key]


def find(name: str) -> Benchmark | None:
    _load_builtin()
    return _REGISTRY.get(str(name).replace("-", "_"))


def make_task(name: str, *, data: str | Path | None = None, config: str | None = None,
              dataset_revision: str | None = None, variant: str | None = None,
              images: str | Path | None = None, retry: str | None = None):
    """The benchmark's runner task; `images` only where the benchmark takes an image folder, `retry` only
    where it has a formatting retry (`Benchmark.retry_policies`)."""
    bench = get(name)
    if variant is not None and variant not in bench.variants:
        allowed = ", ".join(bench.variants) or "none"
        raise BadInput(f"{bench.cli_name} has no prompt variant {variant!r}", field="--variant",
                       fix=f"variants: {allowed}")
    if variant is None and bench.variants:
        variant = bench.variants[0]
    options: dict[str, Any] = {}
    if images is not None:
        if not bench.takes_images:
            raise BadInput(f"{bench.cli_name} takes no --images folder", field="--images",
                           fix="images come with its dataset; drop --images")
        options["images"] = images
    if retry is not None:
        if retry not in bench.retry_policies:
            fix = (f"use one of {', '.join(bench.retry_policies)}" if bench.retry_policies
                   else "drop --retry")
            raise BadInput(f"{bench.cli_name} has no formatting retry {retry!r}"
                           + ("" if bench.retry_policies else " (it asks each sample once)"), field="--retry", fix=fix)
        options["retry"] = retry
    if data is None:
        data = bench.default_data()
    else:
        data, dataset_revision = resolve_data(data, config=config, revision=dataset_revision)
    return bench.part("task")(data=data, config=config, dataset_revision=dataset_revision, variant=variant,
                              **options)


def resolve_data(value: str | Path, *, config: str | None = None, revision: str | None = None,
                 field: str = "--data") -> tuple[Path, str | None]:
    """(local path, dataset revision to record) for a `--data` / `--references` value: a path, a benchmark
    name in either spelling (its local folder, never the network) or a Hub id `ORG/NAME[@REVISION]` (fetched
    through the huggingface_hub cache; `revision` applies when the id names none). A Hub dataset's revision
    is recorded as the one asked for (a version tag stays readable), else the snapshot's commit."""
    from eval_kit.hub_data import resolve

    path, hub = resolve(value, config=config, revision=revision, field=field)
    if hub is None:
        return path, revision
    return path, (hub.revision if hub.revision != "main" else hub.commit)
