"""Execute a generation plan into a run directory, locally or on a Ray cluster, resumably.

The engine is generic: a *worker* turns one plan job into a `JobResult` (deterministic record, PNG
bytes, timings). The driver process is the only writer of the run directory, so local and Ray runs
produce the same files, and a crash at any point loses at most the jobs in flight.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from builder.movsafebench.hazardforge.ray_engine import RayRunStats
from builder.movsafebench.hazardforge.runstore import RunStore


@dataclass
class JobResult:
    """What a worker returns for one job. `record["status"]` is accepted, rejected or failed.

    The output is either PNG bytes (`image_png`) or an image not encoded yet (`image` plus `encode`, a
    function image -> PNG bytes): encoding a 1600x900 PNG costs more than the rest of a job's overhead, so
    the engine does it in writer threads (OpenCV releases the GIL) while the next job is edited.
    """

    job_id: str
    record: dict[str, Any]
    image_png: bytes | None = None
    timings: dict[str, float] = field(default_factory=dict)
    image: Any = None
    encode: Callable[[Any], bytes] | None = None

    def encoded(self) -> JobResult:
        """This result with its image encoded to PNG bytes (a no-op when it already is)."""
        if self.image is not None and self.image_png is None:
            self.image_png = self.encode(self.image)  # type: ignore[misc]
            self.image = None
        return self


class JobWorker(Protocol):
    def process(self, job: dict[str, Any]) -> JobResult: ...


WorkerFactory = Callable[[], JobWorker]


@dataclass
class RunSummary:
    total: int
    skipped: int
    processed: int
    statuses: Counter
    failures: list[tuple[str, str]]
    seconds: float
    lost_jobs: int = 0  # Ray: job attempts whose actor or node died; each went to another actor


    def as_dict(self) -> dict[str, Any]:
        return {
            "total": self.total, "already_done": self.skipped, "processed": self.processed,
            "statuses": dict(self.statuses), "failures": [{"job_id": j, "reason": r} for j, r in self.failures],
            "seconds": round(self.seconds, 3), "lost_jobs": self.lost_jobs,
        }


def _progress(total: int, enabled: bool):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]forge"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), disable=not enabled, transient=False,
    )


def run_jobs(
    jobs: list[dict[str, Any]],
    store: RunStore,
    worker_factory: WorkerFactory,
    *,
    engine: str = "local",
    progress: bool = True,
    ray_address: str | None = None,
    num_workers: int = 1,
    gpus_per_worker: float = 0.0,
    writer_threads: int = 2,
    ray_address_checked: bool = False,
) -> RunSummary:
    """Run every job of `jobs` whose record is not in `store` yet; return what happened.

    Re-running the same call skips finished jobs and redoes half-written ones (their temp files are
    removed first). Failures are recorded per job with a reason and never stop the run. `writer_threads`
    encode and write outputs while the next jobs run (each job's image is written before its record).
    """
    start = time.perf_counter()
    store.clean_partial()
    seen: set[str] = set()
    pending: list[dict[str, Any]] = []
    for job in jobs:
        job_id = job["job_id"]
        if job_id in seen:
            continue  # a plan never lists a job twice, but be safe: one record per job id
        seen.add(job_id)
        if not store.is_done(job_id):
            pending.append(job)
    skipped = len(seen) - len(pending)
    statuses: Counter = Counter()
    failures: list[tuple[str, str]] = []
    ray_stats = RayRunStats()

    if engine == "local":
        worker = worker_factory() if pending else None
        results: Iterable[JobResult] = (worker.process(job) for job in pending)  # type: ignore[union-attr]
    elif engine == "ray":
        from builder.movsafebench.hazardforge.ray_engine import ray_results

        results = ray_results(pending, worker_factory, address=ray_address, num_workers=num_workers,
                              gpus_per_worker=gpus_per_worker, stats=ray_stats,
                              check_address=not ray_address_checked) if pending else iter(())
    else:
        raise ValueError(f"unknown engine {engine!r}; expected local or ray")

    def write(result: JobResult) -> JobResult:
        result.encoded()
        store.write_result(result.job_id, result.record, result.image_png, result.timings)
        return result

    with _progress(len(pending), progress) as bar, ThreadPoolExecutor(max_workers=writer_threads) as writers:
        task = bar.add_task("forge", total=len(pending), rate="")
        in_flight: deque[Future] = deque()
        done = 0

        def collect(future: Future) -> None:
            nonlocal done
            result = future.result()  # a failed write stops the run: its job has no record and is redone
            status = result.record.get("status", "failed")
            statuses[status] += 1
            if status == "failed":
                failures.append((result.job_id, str(result.record.get("reason", "unknown"))))
            done += 1
            bar.update(task, advance=1, rate=f"{done / (time.perf_counter() - start):.2f} jobs/s")

        for result in results:
            in_flight.append(writers.submit(write, result))
            while len(in_flight) > 2 * writer_threads:  # bound the images held in memory
                collect(in_flight.popleft())
        while in_flight:
            collect(in_flight.popleft())
    return RunSummary(len(seen), skipped, sum(statuses.values()), statuses, failures, time.perf_counter() - start,
                      ray_stats.lost_jobs)
