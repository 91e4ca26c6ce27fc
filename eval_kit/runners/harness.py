"""The generic runner: samples -> batched requests -> raw log -> submission, resumable after any crash.

Order is the task's sample order and each batch is logged in that order, so a run killed at any point
and resumed ends with the same raw log, byte for byte, as a run that was never interrupted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_json, atomic_write_text
from eval_kit.runners.backends.base import Backend
from eval_kit.runners.rawlog import RawLog, request_key
from eval_kit.runners.task import Message, Request, Task, generic_prediction_line, prompt_text

RAW_LOG = "raw.jsonl"
RUN_FILE = "run.json"
PREDICTIONS = "predictions.jsonl"
METADATA = "metadata.json"


@dataclass
class RunSummary:
    out: Path
    total: int  # samples in the (limited) split
    generated: int  # requests sent in this invocation (first attempts)
    skipped: int  # finished in an earlier invocation
    repaired: int  # formatting-only retries sent
    seconds: float
    torn_bytes: int

    @property
    def samples_per_second(self) -> float:
        return self.generated / self.seconds if self.seconds > 0 else float("inf")


def run_identity(task: Task, backend: Backend, model: str, text_only: bool, revision: str | None) -> dict[str, Any]:
    """What makes two invocations the same run (so the second may resume the first)."""
    return {"benchmark": task.name, "benchmark_version": task.version, "model": model, "revision": revision,
            "backend": backend.name, "settings": backend.settings(), "dataset_revision": task.dataset_revision,
            "config": task.config, "text_only": text_only, "variant": task.variant}


def _check_run_file(out: Path, identity: dict[str, Any], data: str | None) -> None:
    path = out / RUN_FILE
    if path.exists():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            raise BadInput("unreadable run file", path=path, fix="use a new --out folder") from None
        old = previous.get("identity")
        if old != json.loads(json.dumps(identity, default=str)):
            diff = sorted(k for k in identity if (old or {}).get(k) != identity[k])
            raise BadInput(f"this folder holds a different run (differs in: {', '.join(diff)})", path=out,
                           fix="use a new --out folder, or the same options as before to resume")
        return
    atomic_write_json(path, {"identity": identity, "data": data})


def _batches(samples: Iterator[Request], size: int) -> Iterator[list[Request]]:
    batch: list[Request] = []
    for s in samples:
        batch.append(s)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _progress(enabled: bool, total: int | None, console=None):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Throughput(ProgressColumn):
        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("-- samples/s" if speed is None else f"{speed:.1f} samples/s")

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), Throughput(),
                    TextColumn("ETA"), TimeRemainingColumn(), TimeElapsedColumn(), disable=not enabled,
                    transient=False, console=console)


def retry_sample(sample: Request, messages: list[Message]) -> Request:
    """The same sample (id, images) asked again with the task's formatting-repair messages."""
    return Request(id=sample.id, messages=messages, images=sample.images, label=sample.label, variant=sample.variant)


def run(task: Task, backend: Backend, out: str | Path, *, model: str, limit: int | None = None,
        text_only: bool = False, batch_size: int = 8, revision: str | None = None,
        progress: bool = True) -> RunSummary:
    """Run `backend` on `task` into folder `out`, resuming whatever an earlier invocation finished."""
    out = Path(out)
    if batch_size < 1:
        raise BadInput("batch size must be >= 1", field="--batch-size")
    identity = run_identity(task, backend, model, text_only, revision)
    _check_run_file(out, identity, str(task.data.resolve()) if task.data is not None else None)
    log = RawLog(out / RAW_LOG)
    settings = backend.settings()
    total = task.count(limit=limit)
    seen: set[str] = set()
    generated = skipped = repaired = 0
    started = time.perf_counter()

    def keyed(samples: Iterator[Request]) -> Iterator[Request]:
        nonlocal skipped
        for s in samples:
            if s.id in seen:
                raise BadInput(f"duplicate sample id {s.id!r} in the dataset", path=task.data, field="id")
            seen.add(s.id)
            s.key = request_key(dataset_revision=task.dataset_revision, prompt=prompt_text(s.messages),
                                n_images=len(s.images), model=model, backend=backend.name, settings=settings,
                                variant=s.variant)
            if (s.id, s.key) in log.done:
                skipped += 1
                bar.advance(job)
                continue
            yield s

    try:
        with _progress(progress, total) as bar:
            job = bar.add_task(f"{task.name} / {model}", total=total)
            for batch in _batches(keyed(task.samples(limit=limit, text_only=text_only)), batch_size):
                responses = list(backend.generate(batch))
                if len(responses) != len(batch):
                    raise RuntimeError(f"backend returned {len(responses)} responses for {len(batch)} requests")
                first = list(responses)
                retries = [(i, task.repair(s, r)) for i, (s, r) in enumerate(zip(batch, responses, strict=True))]
                retries = [(i, m) for i, m in retries if m is not None]
                retried = {i for i, _ in retries}
                if retries:
                    again = backend.generate([retry_sample(batch[i], m) for i, m in retries])
                    for (i, _), text in zip(retries, again, strict=True):
                        responses[i] = text
                    repaired += len(retries)
                records = []
                for i, (s, text) in enumerate(zip(batch, responses, strict=True)):
                    record: dict[str, Any] = {"id": s.id, "key": s.key, "response": text,
                                              "prediction": task.parse(text)}
                    if s.variant is not None:
                        record["variant"] = s.variant
                    if i in retried:
                        record["first_response"] = first[i]
                    records.append(record)
                log.append(records)
                generated += len(batch)
                bar.advance(job, len(batch))
    finally:
        log.close()
        backend.close()
    elapsed = time.perf_counter() - started
    write_submission(out, identity, task=task)
    return RunSummary(out=out, total=len(seen), generated=generated, skipped=skipped, repaired=repaired,
                      seconds=elapsed, torn_bytes=log.torn_bytes)


def write_submission(out: Path, identity: dict[str, Any] | None = None, *, parse=None,
                     task: Task | None = None) -> tuple[Path, Path]:
    """predictions.jsonl (+ metadata.json) from the raw log: the last record of each id.

    With `parse`, responses are parsed again (after a parser change), not taken from the log. With
    `task`, each line is the task's `prediction_line` (BD-HazardVLM adds the retry audit fields).
    """
    from eval_kit.runners.rawlog import read_records

    records = read_records(out / RAW_LOG)
    latest: dict[str, dict[str, Any]] = {}
    for r in records:
        latest[r["id"]] = r
    lines = []
    for r in latest.values():
        prediction = parse(r.get("response")) if parse is not None else r.get("prediction")
        line = (task.prediction_line if task is not None else generic_prediction_line)(r, prediction)
        lines.append(json.dumps(line, ensure_ascii=False, sort_keys=True))
    predictions = out / PREDICTIONS
    atomic_write_text(predictions, "".join(x + "\n" for x in lines))
    if identity is None:
        identity = json.loads((out / RUN_FILE).read_text(encoding="utf-8"))["identity"]
    from eval_kit import __version__

    meta = {k: identity.get(k) for k in ("benchmark", "benchmark_version", "model", "revision", "backend",
                                         "settings", "dataset_revision", "config", "text_only", "variant")}
    meta["num_predictions"] = len(lines)
    meta["hazardkit_version"] = __version__
    metadata = out / METADATA
    atomic_write_json(metadata, meta)
    return predictions, metadata
