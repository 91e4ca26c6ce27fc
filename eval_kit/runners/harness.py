"""The generic runner: samples -> requests -> raw log -> submission, resumable after any crash.

Every sample's outcome (an answer, or a failure with its reason and attempt count) is appended to the raw
log as soon as it is known, so a failing sample never stops or loses the others, and a killed run loses
nothing it had received. Batch backends (transformers, vLLM) get batches in the task's sample order; a
server backend (`Backend.concurrency`) keeps that many requests in flight at all times and answers land in
the log as they arrive. Submissions are written in the task's sample order either way, and a rerun with
the same options asks only the samples without an answer (never-asked and failed ones). Either way, samples
are prepared (`Backend.prepare`: images decoded, or encoded as a server wants them) on a pool of threads
ahead of need, and a sample whose image cannot be used fails alone.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_json, atomic_write_text
from eval_kit.runners.backends.base import Backend, BackendError, Outcome, SampleFailure
from eval_kit.runners.images import image_digest
from eval_kit.runners.rawlog import RawLog, encode_record, is_failure, request_key, storable_text
from eval_kit.runners.task import Message, Request, Task, generic_prediction_line, prompt_text

RAW_LOG = "raw.jsonl"
RUN_FILE = "run.json"
PREDICTIONS = "predictions.jsonl"
METADATA = "metadata.json"
# a server backend keeps this many prepared requests queued beyond its concurrency, so a finished request
# is replaced at once (and the prefetch stage keeps as many again prepared behind them)
_QUEUE_AHEAD = 2
# threads that prepare samples (decode or encode their images) ahead of need, off the request loop
_PREPARE_WORKERS = max(2, min(8, os.cpu_count() or 2))
# `--batch-size auto`: the first batch tried; halved on out-of-memory until a batch fits (a server backend, which
# has no batches, fsyncs its log every _AUTO_SERVER_SYNC outcomes instead)
AUTO_BATCH_START = 64
_AUTO_SERVER_SYNC = 8


@dataclass
class BatchSize:
    """The batch size of a run: fixed, or `auto` (the largest that fits, found on the first batch)."""

    size: int
    auto: bool = False
    found: bool = False

    @classmethod
    def parse(cls, value: int | str) -> BatchSize:
        if isinstance(value, str) and value.strip().lower() == "auto":
            return cls(AUTO_BATCH_START, auto=True)
        try:
            size = int(value)
        except (TypeError, ValueError):
            size = 0
        if size < 1:
            raise BadInput(f"batch size {value!r} is neither a whole number >= 1 nor auto", field="--batch-size",
                           fix="pass e.g. --batch-size 16, or --batch-size auto (the largest batch that fits)")
        return cls(size)


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether `exc` says the device ran out of memory: `torch.OutOfMemoryError` (CUDA and others), or a
    RuntimeError accelerate's `should_reduce_batch_size` reads as out of memory."""
    if type(exc).__name__ == "OutOfMemoryError":
        return True
    try:
        from accelerate.utils.memory import should_reduce_batch_size
    except ImportError:
        return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()
    return bool(should_reduce_batch_size(exc))


def _free_device_memory() -> None:
    """Release what a failed batch left cached on the GPU (only when torch is in use and CUDA started), so its
    halves find the memory free."""
    import sys

    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return
    import gc

    gc.collect()
    torch.cuda.empty_cache()


@dataclass(frozen=True)
class FailureBudget:
    """`--max-failures`: how many failed samples a run tolerates before it stops (a count or a share).

    A count N stops the run at failure N+1 (0: stop at the first). A share (`5%` or `0.05`) is of the
    run's samples; when their number is unknown, of the samples tried so far, counted as at least 20.
    """

    count: int | None = None
    share: float | None = None

    @classmethod
    def parse(cls, text: str) -> FailureBudget:
        value = text.strip()
        try:
            if value.endswith("%"):
                share = float(value[:-1]) / 100
            elif re.fullmatch(r"\d+", value):
                return cls(count=int(value))
            else:
                share = float(value)
        except ValueError:
            share = -1.0
        if not 0 <= share < 1:
            raise BadInput(f"{text!r} is neither a count nor a share of the samples", field="--max-failures",
                           fix="use a whole number (e.g. 10), a percentage (5%) or a fraction below 1 (0.05)")
        return cls(share=share)

    def limit(self, total: int | None, tried: int) -> int | None:
        if self.count is not None:
            return self.count
        if self.share is None:
            return None
        return math.floor(self.share * (total if total is not None else max(tried, 20)))

    def __str__(self) -> str:
        return str(self.count) if self.count is not None else f"{100 * (self.share or 0):g}%"


@dataclass
class RunSummary:
    out: Path
    total: int  # samples in the (limited) split seen by this invocation
    generated: int  # samples answered in this invocation
    skipped: int  # answered in an earlier invocation
    repaired: int  # formatting-only retries sent
    seconds: float
    torn_bytes: int
    failed: int = 0  # samples that failed in this invocation (logged with their reason; a rerun retries them)
    failures: list[dict[str, Any]] = field(default_factory=list)  # their failure records
    stopped: str | None = None  # why the run stopped before asking every sample (--max-failures), if it did

    @property
    def samples_per_second(self) -> float:
        return self.generated / self.seconds if self.seconds > 0 else float("inf")

    @property
    def unanswered(self) -> int:
        """Samples without an answer after this invocation: failed ones plus those never asked."""
        return self.total - self.skipped - self.generated

    def failure_reasons(self, top: int = 3) -> list[tuple[str, int, list[str]]]:
        """(reason, count, example ids) of this invocation's failures, most frequent cause first.

        Failures group by cause (the reason without its quoted excerpts); the first one's full reason is shown.
        """
        groups: dict[str, list[dict[str, Any]]] = {}
        for record in self.failures:
            groups.setdefault(_reason_group(record["error"]), []).append(record)
        ranked = sorted(groups.values(), key=lambda records: -len(records))
        return [(records[0]["error"], len(records), [r["id"] for r in records[:3]]) for records in ranked[:top]]


def _reason_group(reason: str) -> str:
    """A failure reason without its per-sample details (quoted excerpts), so equal causes group together."""
    return re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", reason)[:160]


def run_identity(task: Task, backend: Backend, model: str, text_only: bool, revision: str | None,
                 preset: dict[str, Any] | None = None) -> dict[str, Any]:
    """What makes two invocations the same run (so the second may resume the first); `preset`: the paper
    preset the settings came from (`eval --preset`), when one did."""
    identity = {"benchmark": task.name, "benchmark_version": task.version, "model": model, "revision": revision,
                "backend": backend.name, "settings": run_settings(task, backend),
                "dataset_revision": task.dataset_revision,
                "config": task.config, "text_only": text_only, "variant": task.variant}
    if preset is not None:
        identity["preset"] = preset
    return identity


def run_settings(task: Task, backend: Backend) -> dict[str, Any]:
    """The backend's settings plus the task's own choices (e.g. the retry policy): what every key hashes."""
    return {**backend.settings(), **task.run_settings()}


def _check_run_file(out: Path, identity: dict[str, Any], data: str | None, *, write: bool = True) -> None:
    """Refuse a folder that holds another run; record this run's identity there when `write` and none is."""
    path = out / RUN_FILE
    if path.exists():
        from eval_kit.strictjson import read_json

        try:
            previous = read_json(path)
        except BadInput as exc:
            raise BadInput(f"unreadable run file ({exc.detail})", path=path, fix="use a new --out folder") from None
        old = previous.get("identity") if isinstance(previous, dict) else None
        if old != json.loads(json.dumps(identity, default=str)):
            diff = sorted(k for k in identity if (old or {}).get(k) != identity[k])
            raise BadInput(f"this folder holds a different run (differs in: {', '.join(diff)})", path=out,
                           fix="use a new --out folder, or the same options as before to resume")
        return
    if write:
        atomic_write_json(path, {"identity": identity, "data": data})


# a sample from the prefetch stage: ready to send (None), or failed while preparing (its image is unusable)
Prepared = tuple[Request, SampleFailure | None]


def _prepare_one(backend: Backend, sample: Request) -> Prepared:
    from eval_kit.runners.images import ImageProblem

    try:
        return backend.prepare(sample), None
    except (BadInput, BackendError):
        raise
    except ImageProblem as exc:
        return sample, SampleFailure(str(exc))
    except Exception as exc:  # one sample's image that the backend cannot encode: that sample fails
        return sample, SampleFailure(f"preparing the request failed: {_describe(exc)}")


def _prefetched(backend: Backend, samples: Iterator[Request], ahead: int, stop: threading.Event
                ) -> Iterator[Prepared]:
    """`samples` prepared by `backend.prepare` on a pool of threads, `ahead` of the consumer, in order.

    Image decoding (and a server backend's encoding) thus runs in parallel while the model or the server
    works on earlier samples: a backend never waits on it."""
    pool = ThreadPoolExecutor(max_workers=_PREPARE_WORKERS, thread_name_prefix="hazardkit-prepare")
    queue: deque[Future] = deque()
    exhausted = False
    try:
        while True:
            while not exhausted and not stop.is_set() and len(queue) < ahead:
                sample = next(samples, None)
                if sample is None:
                    exhausted = True
                    break
                queue.append(pool.submit(_prepare_one, backend, sample))
            if not queue:
                return
            yield queue.popleft().result()
    finally:
        for future in queue:
            future.cancel()
        pool.shutdown(wait=True)


def _batches(samples: Iterator[Prepared], size: BatchSize, stop: threading.Event) -> Iterator[list[Prepared]]:
    batch: list[Prepared] = []
    for s in samples:
        batch.append(s)
        if len(batch) >= size.size:
            yield batch
            batch = []
            if stop.is_set():
                return
    if batch:
        yield batch


def _progress(enabled: bool, total: int | None, console=None):
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    class Throughput(ProgressColumn):
        """Samples/s and ETA from a smoothed rate: rich's own speed is taken over its last few updates, so a
        batch of 8 answers at once read as "1821.6 samples/s" at a real 1.4/s, and resumed samples counted too."""

        def __init__(self) -> None:
            super().__init__()
            self.rate = SmoothedRate()

        def render(self, task) -> Text:
            done = task.completed - task.fields.get("resumed", 0)
            rate = self.rate.update(time.monotonic(), done)
            if rate is None:
                return Text("-- samples/s ETA -:--:--")
            left = max(0.0, (task.total or 0) - task.completed)
            eta = time.strftime("%H:%M:%S", time.gmtime(left / rate)) if rate > 0 and left / rate < 86400 else "-"
            return Text(f"{rate:.1f} samples/s ETA {eta}")

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), Throughput(),
                    TimeElapsedColumn(), disable=not enabled,
                    transient=False, console=console or Console(stderr=True))  # stdout: the summary only


class SmoothedRate:
    """An exponentially smoothed rate (items/s) over the whole time between updates, with a `tau` s memory:
    many items at once after a long wait count as that wait's rate, not as a burst."""

    def __init__(self, tau: float = 20.0) -> None:
        self.tau = tau
        self.value: float | None = None
        self._last: tuple[float, float] | None = None

    def update(self, now: float, done: float) -> float | None:
        if self._last is None:
            self._last = (now, done)
            return self.value
        then, before = self._last
        if done == before or now <= then:
            return self.value
        instant = (done - before) / (now - then)
        weight = 1.0 - math.exp(-(now - then) / self.tau)
        self.value = instant if self.value is None else self.value + weight * (instant - self.value)
        self._last = (now, done)
        return self.value


def retry_sample(sample: Request, messages: list[Message]) -> Request:
    """The same sample (id, images) asked again with the task's formatting-repair messages."""
    return Request(id=sample.id, messages=messages, images=sample.images, label=sample.label, variant=sample.variant,
                   index=sample.index, prepared=sample.prepared)


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def _generate(backend: Backend, batch: list[Request]) -> list[Outcome]:
    """`backend.generate(batch)`, where an exception fails only the sample that causes it.

    A batch that runs out of device memory is split in halves, each asked again (and halved again if need
    be), so a batch of 32 that does not fit runs as two of 16, not 32 of one. When a batch raises anything
    else (a sample the processor cannot take), its samples are asked one at a time so the others still get
    answers; a lone sample that raises is a failure. Bad input and `BackendError` concern the whole run and
    stop it.
    """
    try:
        outcomes = list(backend.generate(batch))
    except (BadInput, BackendError):
        raise
    except Exception as exc:
        if len(batch) == 1:
            return [SampleFailure(_describe(exc))]
        if is_out_of_memory(exc):
            del exc  # its traceback holds the failed batch's tensors
            _free_device_memory()
            half = len(batch) // 2
            return _generate(backend, batch[:half]) + _generate(backend, batch[half:])
        return [outcome for sample in batch for outcome in _generate(backend, [sample])]
    if len(outcomes) != len(batch):
        raise BackendError(f"backend returned {len(outcomes)} responses for {len(batch)} requests")
    return outcomes


def _after_retry(outcome: Outcome) -> Outcome:
    if isinstance(outcome, SampleFailure):
        return SampleFailure(f"formatting retry: {outcome.reason}", outcome.attempts)
    return outcome


# (sample, final outcome, first response when a formatting retry replaced it)
Answered = tuple[Request, Outcome, str | None]


def _fit_batch(backend: Backend, batch: list[Request], size: BatchSize) -> list[Outcome]:
    """`--batch-size auto` on the run's first batch: the largest head of it that fits, halving on out of memory
    (accelerate's `find_executable_batch_size`), then the rest of the batch at that size; sets `size`."""
    from accelerate.utils import find_executable_batch_size

    tried = len(batch)

    def halve() -> int:
        nonlocal tried
        tried //= 2
        return tried

    @find_executable_batch_size(starting_batch_size=len(batch), reduce_batch_size_fn=halve)
    def head(batch_size: int) -> list[Outcome]:
        outcomes = list(backend.generate(batch[:batch_size]))
        if len(outcomes) != batch_size:
            raise BackendError(f"backend returned {len(outcomes)} responses for {batch_size} requests")
        return outcomes

    try:
        outcomes = head()
    except (BadInput, BackendError):
        raise
    except Exception as exc:
        if is_out_of_memory(exc) or tried == 0:  # not even one sample fits: each fails with the reason
            tried = 1
            outcomes = _generate(backend, batch[:1])
        else:  # another error: no size learnt; the samples are asked one at a time as for a fixed size
            tried = len(batch)
            outcomes = [outcome for sample in batch for outcome in _generate(backend, [sample])]
    size.size, size.found = max(1, tried), True
    for start in range(len(outcomes), len(batch), size.size):
        outcomes += _generate(backend, batch[start:start + size.size])
    return outcomes


def _in_batches(task: Task, backend: Backend, pending: Iterator[Prepared], batch_size: BatchSize,
                stop: threading.Event) -> Iterator[Answered]:
    for prepared in _batches(pending, batch_size, stop):
        batch = [sample for sample, problem in prepared if problem is None]
        if batch and batch_size.auto and not batch_size.found:
            outcomes = _fit_batch(backend, batch, batch_size)
        else:
            outcomes = _generate(backend, batch) if batch else []
        retries = [(i, task.repair(s, o)) for i, (s, o) in enumerate(zip(batch, outcomes, strict=True))
                   if isinstance(o, str)]
        retries = [(i, m) for i, m in retries if m is not None]
        firsts: dict[int, str] = {}
        if retries:
            again = _generate(backend, [retry_sample(batch[i], m) for i, m in retries])
            for (i, _), outcome in zip(retries, again, strict=True):
                firsts[i] = outcomes[i]  # type: ignore[assignment]
                outcomes[i] = _after_retry(outcome)
        answered = iter(range(len(batch)))
        for sample, problem in prepared:
            if problem is not None:
                yield sample, problem, None
                continue
            i = next(answered)
            yield sample, outcomes[i], firsts.get(i)


def _ask_one(task: Task, backend: Backend, sample: Request) -> tuple[Outcome, str | None]:
    """One sample on a worker thread: the request, then its formatting retry when the task asks for one."""
    first = _generate(backend, [sample])[0]
    if isinstance(first, str):
        messages = task.repair(sample, first)
        if messages is not None:
            return _after_retry(_generate(backend, [retry_sample(sample, messages)])[0]), first
    return first, None


def _continuously(task: Task, backend: Backend, pending: Iterator[Prepared], width: int,
                  stop: threading.Event) -> Iterator[Answered]:
    """Keep `width` requests in flight; yield each sample's outcome as soon as it is known."""
    pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="hazardkit-request")
    in_flight: dict[Future, Request] = {}
    exhausted = False
    try:
        while True:
            while not exhausted and not stop.is_set() and len(in_flight) < width + _QUEUE_AHEAD:
                ready = next(pending, None)
                if ready is None:
                    exhausted = True
                    break
                sample, problem = ready
                if problem is not None:
                    yield sample, problem, None
                    continue
                in_flight[pool.submit(_ask_one, task, backend, sample)] = sample
            if not in_flight:
                return
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: in_flight[f].index or 0):
                sample = in_flight.pop(future)
                final, first = future.result()
                yield sample, final, first
    finally:
        if in_flight:  # leaving on an error or Ctrl-C: cut the requests off, nobody would log their answers
            backend.abort()
        # every request thread has ended before the run (and its folder lock) does
        pool.shutdown(wait=True, cancel_futures=True)


def run(task: Task, backend: Backend, out: str | Path, *, model: str, limit: int | None = None,
        text_only: bool = False, batch_size: int | str = 8, revision: str | None = None, progress: bool = True,
        max_failures: FailureBudget | None = None, preset: dict[str, Any] | None = None,
        display_name: str | None = None, notify: Callable[[str], None] | None = None) -> RunSummary:
    """Run `backend` on `task` into folder `out`, resuming whatever an earlier invocation answered.

    `batch_size`: samples per `generate` call for batch backends, or `"auto"`: the largest batch that fits,
    from AUTO_BATCH_START halving on out-of-memory (recorded as `batch_size` in metadata.json); for every
    backend, the raw log is fsync'd after that many outcomes (each is written and flushed at once).
    `max_failures`: stop asking new samples once more samples than it allows have failed (default: never stop).
    `display_name`: what metadata.json calls the model (`eval --model-name`; default:
    `display_names.default_display_name`), kept in run.json beside the identity, so naming a run differently
    never makes it another run. `notify`: called with each of the backend's `notices()` once it has loaded.
    """
    out = Path(out)
    size = BatchSize.parse(batch_size)
    if size.auto and backend.concurrency:
        size = BatchSize(_AUTO_SERVER_SYNC)  # a server backend has no batches to fit
    if size.auto:
        import importlib.util

        if importlib.util.find_spec("accelerate") is None:
            raise BadInput("--batch-size auto needs accelerate", field="--batch-size",
                           fix="pip install 'hazardkit[models]' (or pass a number)")
    identity = run_identity(task, backend, model, text_only, revision, preset)
    data = str(task.data.resolve()) if task.data is not None else None
    _check_run_file(out, identity, data, write=False)
    total = task.count(limit=limit)
    if total == 0:
        raise BadInput("the dataset has no samples", path=task.data,
                       fix="check --data and --config (an empty split gives an empty submission nobody can score)")
    backend.load()  # after the check (no minutes of loading for a refused folder), before run.json is written
    _check_run_file(out, identity, data)
    record_display_name(out, display_name)
    for line in backend.notices() if notify is not None else ():
        notify(line)
    log = RawLog(out / RAW_LOG, sync_every=size.size)
    settings = run_settings(task, backend)
    seen: set[str] = set()
    generated = skipped = repaired = 0
    failures: list[dict[str, Any]] = []
    stopped: str | None = None
    stop = threading.Event()
    budget = max_failures or FailureBudget()
    started = time.perf_counter()
    answered: Iterator[Answered] | None = None
    pending: Iterator[Prepared] | None = None

    def keyed(samples: Iterator[Request]) -> Iterator[Request]:
        nonlocal skipped
        for index, s in enumerate(samples):
            if s.id in seen:
                raise BadInput(f"duplicate sample id {s.id!r} in the dataset", path=task.data, field="id")
            seen.add(s.id)
            s.index = index
            s.key = request_key(dataset_revision=task.dataset_revision, prompt=prompt_text(s.messages),
                                n_images=len(s.images), model=model, backend=backend.name, settings=settings,
                                variant=s.variant, image_digests=[image_digest(i) for i in s.images])
            if (s.id, s.key) in log.done:
                skipped += 1
                bar.update(job, advance=1, resumed=skipped)  # not in the rate: nothing was generated
                continue
            yield s

    try:
        with _progress(progress, total) as bar:
            job = bar.add_task(f"{task.name} / {model}", total=total)
            samples = keyed(task.samples(limit=limit, text_only=text_only))
            if backend.concurrency:
                pending = _prefetched(backend, samples, backend.concurrency + _QUEUE_AHEAD, stop)
                answered = _continuously(task, backend, pending, backend.concurrency, stop)
            else:
                pending = _prefetched(backend, samples, 2 * size.size, stop)
                answered = _in_batches(task, backend, pending, size, stop)
            for sample, outcome, first in answered:
                if outcome is None:
                    continue  # given up while stopping: asked again next time
                record = outcome_record(task, sample, outcome, first)
                repaired += "first_response" in record
                log.append([record])
                bar.advance(job)
                if not is_failure(record):
                    generated += 1
                    continue
                failures.append(record)
                allowed = budget.limit(total, generated + len(failures))
                if allowed is not None and len(failures) > allowed and stopped is None:
                    stopped = f"{len(failures)} samples failed, more than --max-failures {budget} allows"
                    stop.set()
                    backend.stop()
    finally:
        if answered is not None:
            answered.close()  # type: ignore[attr-defined]  # a generator: stops the requests still in flight
        if pending is not None:
            pending.close()  # type: ignore[attr-defined]  # and the prefetch threads
        log.close()
        backend.close()
    elapsed = time.perf_counter() - started
    if not seen:
        raise BadInput("the dataset has no samples", path=task.data, fix="check --data and --config")
    facts = None if backend.concurrency else {"batch_size": size.size, **backend.run_facts()}
    write_submission(out, identity, task=task, facts=facts)
    return RunSummary(out=out, total=len(seen) if stopped is None else (total or len(seen)), generated=generated,
                      skipped=skipped, repaired=repaired, seconds=elapsed, torn_bytes=log.torn_bytes,
                      failed=len(failures), failures=failures, stopped=stopped)


def outcome_record(task: Task, sample: Request, outcome: str | SampleFailure, first: str | None
                   ) -> dict[str, Any]:
    """The raw-log record of one sample's outcome, always storable as one strict-reader line.

    Texts keep every code point a server sent (`storable_text`: a lone surrogate is parsed as U+FFFD and the
    exact text kept in `response_exact`); a record whose line would be over the log's line bound becomes a
    failure saying so (scoring it later would otherwise be refused)."""
    from eval_kit.strictjson import MAX_LINE_BYTES

    record: dict[str, Any] = {"id": sample.id, "key": sample.key, "index": sample.index}
    if isinstance(outcome, SampleFailure):
        record.update(error=outcome.reason, attempts=outcome.attempts)
    else:
        text, exact = storable_text(outcome)
        record.update(response=text, prediction=task.parse(text))
        if exact is not None:
            record["response_exact"] = exact
        usage = sum_usage([getattr(outcome, "usage", None), getattr(first, "usage", None)])
        if usage:
            record["usage"] = usage  # tokens the server billed for this sample (its formatting retry included)
    if sample.variant is not None:
        record["variant"] = sample.variant
    if first is not None:
        text, exact = storable_text(first)
        record["first_response"] = text
        if exact is not None:
            record["first_response_exact"] = exact
    size = len(encode_record(record))
    if size > MAX_LINE_BYTES:
        record = {k: v for k, v in record.items() if k in ("id", "key", "index", "variant")}
        record.update(error=f"the answer is {size:,} bytes once logged, over the raw log's "
                            f"{MAX_LINE_BYTES // 2**20} MiB line bound (lower --max-response-bytes)", attempts=1)
    return record


def sum_usage(usages) -> dict[str, int]:
    """Token counts (`usage` objects: prompt_tokens, completion_tokens, total_tokens) added up, field by field."""
    total: dict[str, int] = {}
    for usage in usages:
        for name, value in (usage or {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                total[name] = total.get(name, 0) + value
    return total


def latest_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last record of each id, in the dataset's sample order (`index`; log order for old logs)."""
    latest: dict[str, dict[str, Any]] = {}
    for r in records:
        latest[r["id"]] = r
    order = {sample_id: position for position, sample_id in enumerate(latest)}
    return sorted(latest.values(), key=lambda r: (r.get("index", math.inf), order[r["id"]]))


def write_submission(out: Path, identity: dict[str, Any] | None = None, *, parse=None,
                     task: Task | None = None, facts: dict[str, Any] | None = None) -> tuple[Path, Path]:
    """predictions.jsonl (+ metadata.json) from the raw log: the last record of each id, in sample order.

    With `parse`, responses are parsed again (after a parser change), not taken from the log. With
    `task`, each line is the task's `prediction_line` (BD-HazardVLM adds the retry audit fields). A sample
    whose last outcome is a failure gets an empty response (scored wrong) and is listed in metadata.json's
    `extra.failed_ids`. `usage`: the servers' token counts summed over the submission's answers (when the
    backend reported any). `facts`: how the run ran that does not change answers (`batch_size`, the size
    `--batch-size auto` chose); without them, those of an earlier metadata.json are kept.
    """
    from eval_kit.runners.rawlog import read_records

    lines = []
    failed: list[str] = []
    usages = []
    for r in latest_records(read_records(out / RAW_LOG)):
        usages.append(r.get("usage"))
        if is_failure(r):
            failed.append(r["id"])
            r = {k: v for k, v in r.items() if k not in ("error", "attempts", "first_response", "first_response_exact")}
            r.update(response="", prediction=None)
            prediction = None
        else:
            prediction = parse(r.get("response")) if parse is not None else r.get("prediction")
        line = (task.prediction_line if task is not None else generic_prediction_line)(r, prediction)
        lines.append(json.dumps(line, ensure_ascii=False, sort_keys=True))
    predictions = out / PREDICTIONS
    atomic_write_text(predictions, "".join(x + "\n" for x in lines))
    if identity is None:
        from eval_kit.strictjson import read_json

        info = read_json(out / RUN_FILE)
        identity = info.get("identity") if isinstance(info, dict) else None
        if not isinstance(identity, dict):
            raise BadInput("run.json has no identity object", path=out / RUN_FILE, fix="use a new --out folder")
    from eval_kit import __version__

    meta = {k: identity.get(k) for k in ("benchmark", "benchmark_version", "model", "revision", "backend",
                                         "settings", "dataset_revision", "config", "text_only", "variant")}
    meta["model"] = run_display_name(out, identity)
    if identity.get("model") and identity["model"] != meta["model"]:
        meta["model_source"] = identity["model"]  # what loaded the weights: for the user, never shown by the board
    if identity.get("preset"):
        meta["preset"] = identity["preset"]
    meta["num_predictions"] = len(lines)
    meta["hazardkit_version"] = __version__
    usage = sum_usage(usages)
    if usage:
        meta["usage"] = {**usage, "samples": sum(1 for u in usages if u)}
    metadata = out / METADATA
    meta.update(_run_facts(metadata) if facts is None else facts)
    if failed:
        meta["extra"] = {"num_failed": len(failed), "failed_ids": failed}
    atomic_write_json(metadata, meta)
    return predictions, metadata


# metadata.json fields about how a run ran (not what shapes its answers), carried over when it is rewritten
RUN_FACTS = ("batch_size", "placeholder_image")


def _run_facts(metadata: Path) -> dict[str, Any]:
    """The run facts of an existing metadata.json (rescoring or resuming keeps them); {} when unreadable."""
    if not metadata.is_file():
        return {}
    from eval_kit.strictjson import read_json

    try:
        previous = read_json(metadata)
    except BadInput:
        return {}
    return {k: previous[k] for k in RUN_FACTS if isinstance(previous, dict) and k in previous}


def record_display_name(out: Path, name: str | None) -> None:
    """Keep `name` (`eval --model-name`) in run.json beside the identity (not in it: a new name is the same run)."""
    if name is None:
        return
    from eval_kit.strictjson import read_json

    info = read_json(out / RUN_FILE)
    if isinstance(info, dict) and info.get("display_name") != name:
        atomic_write_json(out / RUN_FILE, {**info, "display_name": name})


def run_display_name(out: Path, identity: dict[str, Any]) -> str:
    """The model's display name for a run folder: run.json's `display_name`, else (a run made before there was
    one) the default for its `--model`, which is never a local path."""
    from eval_kit.display_names import default_display_name, reduce_paths
    from eval_kit.strictjson import read_json

    try:
        info = read_json(out / RUN_FILE) if (out / RUN_FILE).exists() else {}
    except BadInput:
        info = {}
    chosen = info.get("display_name") if isinstance(info, dict) else None
    if isinstance(chosen, str) and chosen:
        return reduce_paths(chosen)
    return default_display_name(str(identity.get("model") or ""))[0]


def failed_ids(out: Path) -> list[str]:
    """Ids whose last outcome in the run folder's raw log is a failure (what `score run` reports)."""
    from eval_kit.runners.rawlog import read_records

    return [r["id"] for r in latest_records(read_records(out / RAW_LOG)) if is_failure(r)]
