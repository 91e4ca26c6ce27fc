"""A deterministic stand-in worker for run-engine tests: an image derived from the job's seed."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

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


class GatedWorker(FakeWorker):
    """FakeWorker that, from job index `gate_from` on, announces the job (file `started-<job_id>` holding the
    Ray node id) and waits for the file `open` in `gate_dir`: a test then removes a node while a job is in
    flight on it, driven by what has happened rather than by sleeps."""

    def __init__(self, gate_dir: str, gate_from: int) -> None:
        super().__init__(0.0)
        self.gate_dir, self.gate_from = Path(gate_dir), gate_from

    def process(self, job):
        if int(job["job_id"][-4:]) >= self.gate_from:
            import ray

            node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else "local"
            (self.gate_dir / f"started-{job['job_id']}").write_text(f"{node} {os.getpid()}")
            deadline = time.monotonic() + 300
            while not (self.gate_dir / "open").exists():
                if time.monotonic() > deadline:
                    raise TimeoutError("gate never opened")
                time.sleep(0.01)
        return super().process(job)


class GatedWorkerFactory:
    def __init__(self, gate_dir: str, gate_from: int) -> None:
        self.gate_dir, self.gate_from = str(gate_dir), gate_from

    def __call__(self) -> GatedWorker:
        return GatedWorker(self.gate_dir, self.gate_from)


def make_jobs(n: int) -> list[dict]:
    return [{"job_id": f"{i:02x}job{i:04d}", "seed": 1000 + i, "broken": i == 5} for i in range(n)]


if __name__ == "__main__":
    # SIGKILL tests: python fake_forge_worker.py RUNDIR N DELAY [ray GATE_DIR GATE_FROM]
    from builder.movsafebench.hazardforge.run import run_jobs
    from builder.movsafebench.hazardforge.runstore import RunStore

    store = RunStore(sys.argv[1])
    store.init({"plan_sha256": "fake", "editor": "fake", "checker": "fake", "max_attempts": 1})
    if len(sys.argv) > 4 and sys.argv[4] == "ray":
        run_jobs(make_jobs(int(sys.argv[2])), store, GatedWorkerFactory(sys.argv[5], int(sys.argv[6])),
                 engine="ray", num_workers=1, progress=False)
    else:
        run_jobs(make_jobs(int(sys.argv[2])), store, FakeWorkerFactory(float(sys.argv[3])), progress=False)
