"""A deterministic stand-in worker for run-engine tests: an image derived from the job's seed."""

from __future__ import annotations

import io
import sys
import time

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.run import JobResult


class FakeWorker:
    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def process(self, job):
        time.sleep(self.delay)
        if job.get("broken"):
            return JobResult(job["job_id"], {"job_id": job["job_id"], "status": "failed",
                                             "reason": "source image missing"})
        rng = np.random.default_rng(job["seed"])
        pixels = rng.integers(0, 255, size=(24, 32, 3), dtype=np.uint8)
        buffer = io.BytesIO()
        Image.fromarray(pixels).save(buffer, format="PNG")
        status = "accepted" if job["seed"] % 3 else "rejected"
        return JobResult(job["job_id"], {"job_id": job["job_id"], "status": status, "seed": job["seed"]},
                         buffer.getvalue(), {"edit_s": self.delay})


class FakeWorkerFactory:
    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def __call__(self) -> FakeWorker:
        return FakeWorker(self.delay)


def make_jobs(n: int) -> list[dict]:
    return [{"job_id": f"{i:02x}job{i:04d}", "seed": 1000 + i, "broken": i == 5} for i in range(n)]


if __name__ == "__main__":  # used by the SIGKILL test: python fake_forge_worker.py RUNDIR N DELAY
    from builder.movsafebench.hazardforge.run import run_jobs
    from builder.movsafebench.hazardforge.runstore import RunStore

    store = RunStore(sys.argv[1])
    store.init({"plan_sha256": "fake", "editor": "fake", "checker": "fake", "max_attempts": 1})
    run_jobs(make_jobs(int(sys.argv[2])), store, FakeWorkerFactory(float(sys.argv[3])), progress=False)
