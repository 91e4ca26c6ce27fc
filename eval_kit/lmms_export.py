"""Task folders for lmms-eval, and reading its samples logs back: the library behind `hazardkit export
lmms-eval` and `hazardkit score BENCHMARK --from-lmms-eval`.

Each benchmark that lmms-eval can express names its part in the registry (`Benchmark.lmms_eval`, a
`module:attribute` giving a `LmmsTask`). A task folder holds `<task>.yaml` and `utils.py`; the YAML points its
`!function` hooks at utils.py, and utils.py only re-exports hazardkit's own functions (prompt, parser,
scorer), so a task scored inside lmms-eval and `hazardkit score` read answers the same way. lmms-eval 0.7.3
finds such folders only with `--include_path DIR` (its plugin route registers models, not tasks).

lmms-eval's samples log (`--log_samples`) drops the dataset row; our `process_results` therefore puts the
sample id (and, for the clustered standard error, the cluster) into every metric's per-sample dict, which
the log keeps. `predictions_from_samples` reads those lines back as hazardkit prediction lines.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput


@dataclass(frozen=True)
class DataSource:
    """Where lmms-eval reads the dataset: a Hub id (+ config, revision) or local Parquet files."""

    hub_id: str | None = None
    config: str | None = None
    revision: str | None = None
    parquet_files: tuple[str, ...] = ()

    def yaml_lines(self) -> list[str]:
        if self.hub_id:
            lines = [f"dataset_path: {self.hub_id}"]
            if self.config:
                lines.append(f"dataset_name: {self.config}")
            if self.revision:
                lines += ["dataset_kwargs:", f"  revision: {self.revision}"]
            return lines
        files = ", ".join(json.dumps(f) for f in self.parquet_files)
        return ["dataset_path: parquet", "dataset_kwargs:", f"  data_files: {{test: [{files}]}}"]

    def describe(self) -> str:
        if self.hub_id:
            return f"{self.hub_id}{'@' + self.revision if self.revision else ''} config {self.config or 'default'}"
        return f"{len(self.parquet_files)} local Parquet file(s)"


def generate_until_yaml(max_new_tokens: int, cluster_note: str = "") -> str:
    """The YAML every hazardkit task shares: greedy generation, `utils` hooks, clustered standard errors."""
    return f"""
output_type: generate_until
cluster_key: cluster{'  # ' + cluster_note if cluster_note else ''}
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_target: !function utils.doc_to_target
generation_kwargs:
  max_new_tokens: {max_new_tokens}
  temperature: 0
  do_sample: false
process_results: !function utils.process_results
"""


@dataclass(frozen=True)
class LmmsTask:
    """One benchmark's lmms-eval task: its name, YAML body (without the dataset lines) and utils module."""

    name: str
    utils_module: str  # the hazardkit module whose functions utils.py re-exports
    functions: tuple[str, ...]  # the names utils.py re-exports (those the YAML's !function hooks use)
    yaml_body: str  # everything but the dataset lines and `task:`
    needs_images: bool = True
    check_source: Callable[[DataSource], None] | None = None  # raise BadInput for a source it cannot use
    # (path, config) of local data to use when --data is not given (None: the registry's Hub id)
    default_data: Callable[[], tuple[str, str | None] | None] | None = None

    def files(self, source: DataSource) -> dict[str, str]:
        if self.check_source is not None:
            self.check_source(source)
        header = [f"# written by `hazardkit export lmms-eval`: {source.describe()}", f"task: {self.name}",
                  *source.yaml_lines(), "test_split: test"]
        utils = (f'"""lmms-eval hooks for {self.name}: hazardkit\'s own prompt, parser and scorer '
                 f'(written by `hazardkit export lmms-eval`)."""\n\n'
                 f"from {self.utils_module} import {', '.join(self.functions)}  # noqa: F401\n")
        return {f"{self.name}.yaml": "\n".join(header) + "\n" + self.yaml_body.strip() + "\n", "utils.py": utils}


def data_source(value: str | None, *, config: str | None, default_hub_id: str, field: str = "--data"
                ) -> DataSource:
    """A Hub id (`ORG/NAME[@REVISION]`, default: the registry's; config default `demo`) or a local Parquet
    file / dataset folder (config default: its only one)."""
    from eval_kit.hub_data import parse_hub_id
    from eval_kit.tables import parquet_files

    if value is None or (parse_hub_id(value) and not Path(value).exists()):
        repo, revision = parse_hub_id(value or default_hub_id) or (default_hub_id, None)
        return DataSource(hub_id=repo, config=config or "demo", revision=revision)
    path = Path(value)
    if not path.exists():
        raise BadInput("not found", path=path, field=field, fix="pass a Parquet file, a dataset folder or a Hub id")
    files = [f for f in parquet_files(path, config) if f.suffix == ".parquet"]
    return DataSource(config=config, parquet_files=tuple(str(f.resolve()) for f in files))


def export(out: str | Path, tasks: dict[str, tuple[LmmsTask, DataSource]]) -> list[Path]:
    """Write one folder per task under `out` (atomic files); returns the folders."""
    from eval_kit.jsonl import atomic_write_text

    out = Path(out)
    folders = []
    for task, source in tasks.values():
        folder = out / task.name
        for name, text in task.files(source).items():
            atomic_write_text(folder / name, text, durable=False)
        folders.append(folder)
    return folders


def _response(sample: dict[str, Any]) -> str | None:
    """The model's raw text of one logged sample (`resps` before lmms-eval's filters, else `filtered_resps`)."""
    value = sample.get("resps", sample.get("filtered_resps"))
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def predictions_from_samples(path: str | Path, log_lines: list[int] | None = None) -> list[dict[str, Any]]:
    """hazardkit prediction lines `{"id", "response"}` from an lmms-eval samples log written by one of our
    exported tasks (the id travels in each metric's per-sample dict). `log_lines`, when given, receives the
    log's line number of each prediction line, so errors can name the user's log and line."""
    from eval_kit.jsonl import iter_jsonl

    lines = []
    for number, sample in iter_jsonl(path):
        sample_id = next((v["id"] for v in sample.values() if isinstance(v, dict) and isinstance(v.get("id"), str)),
                         None)
        if sample_id is None:
            raise BadInput("no sample id in this lmms-eval sample (not written by a task from `hazardkit export "
                           "lmms-eval`?)", path=path, line=number, field="id",
                           fix="run the task folders `hazardkit export lmms-eval` writes, with --log_samples")
        lines.append({"id": sample_id, "response": _response(sample)})
        if log_lines is not None:
            log_lines.append(number)
    return lines


def samples_as_predictions(samples: str | Path, folder: str | Path, log_lines: list[int] | None = None) -> Path:
    """Write the predictions of an lmms-eval samples log as hazardkit JSON Lines under `folder`."""
    from eval_kit.jsonl import atomic_write_text

    path = Path(folder) / "predictions-from-lmms-eval.jsonl"
    lines = predictions_from_samples(samples, log_lines)
    atomic_write_text(path, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), durable=False)
    return path


@contextmanager
def prediction_file(predictions: Path | None, lmms_samples: Path | None) -> Iterator[Path]:
    """The predictions file a score command reads: `--predictions` as is, or `--from-lmms-eval` converted."""
    if (predictions is None) == (lmms_samples is None):
        raise BadInput("give either --predictions or --from-lmms-eval", field="--predictions",
                       fix="--predictions PRED.jsonl, or --from-lmms-eval SAMPLES.jsonl from lmms-eval --log_samples")
    if predictions is not None:
        yield predictions
        return
    with tempfile.TemporaryDirectory(prefix="hazardkit-lmms-") as folder:
        log_lines: list[int] = []
        converted = samples_as_predictions(lmms_samples, folder, log_lines)
        try:
            yield converted
        except BadInput as exc:  # name the user's log and its line, never the temporary file (gone by then)
            if str(converted) not in f"{exc.path or ''} {exc.detail}":
                raise
            line = log_lines[exc.line - 1] if exc.line and 0 < exc.line <= len(log_lines) else exc.line
            detail = exc.detail.replace(str(converted), str(lmms_samples))
            raise BadInput(detail, path=lmms_samples, line=line, field=exc.field, fix=exc.fix) from None
