"""The run engine: skips finished jobs, redoes half-written ones, records failures, survives SIGKILL."""

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from builder.movsafebench.hazardforge.run import run_jobs
from builder.movsafebench.hazardforge.runstore import RunStore
from eval_kit.errors import BadInput
from tests.fake_forge_worker import FakeWorkerFactory, make_jobs

ROOT = Path(__file__).resolve().parent.parent
INFO = {"plan_sha256": "fake", "editor": "fake", "checker": "fake", "max_attempts": 1}


def snapshot(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every record and image (timings are wall times, not compared)."""
    out = {}
    for sub in ("jobs", "images"):
        for path in sorted((root / sub).rglob("*")):
            if path.is_file():
                out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_run_resume_and_failures(tmp_path):
    store = RunStore(tmp_path / "run")
    store.init(INFO)
    summary = run_jobs(make_jobs(12)[:6], store, FakeWorkerFactory(), progress=False)
    assert summary.processed == 6 and summary.skipped == 0
    assert summary.failures == [("05job0005", "source image missing")]
    summary = run_jobs(make_jobs(12), store, FakeWorkerFactory(), progress=False)
    assert summary.skipped == 6 and summary.processed == 6
    records = list(store.records())
    assert len(records) == 12 and len({r["job_id"] for r in records}) == 12
    assert sum(r["status"] == "failed" for r in records) == 1


def test_half_written_job_is_redone(tmp_path):
    store = RunStore(tmp_path / "run")
    store.init(INFO)
    run_jobs(make_jobs(4), store, FakeWorkerFactory(), progress=False)
    before = snapshot(store.root)
    # simulate a crash: a torn temp file (the atomic writes' name) and a record whose image vanished
    (store.root / "jobs" / "01" / ".01job0001.json.abc.hazardkit-tmp").write_text("{")
    # a maintainer's own temp-looking files are not ours to remove (issue 32)
    (store.root / ".draft.tmp").write_text("mine\n")
    (store.root / "jobs" / "notes~").write_text("mine too\n")
    record_image = next((store.root / "images").rglob("*.png"))
    record_image.unlink()
    summary = run_jobs(make_jobs(4), store, FakeWorkerFactory(), progress=False)
    assert summary.processed >= 1
    assert (store.root / ".draft.tmp").read_text() == "mine\n" and (store.root / "jobs" / "notes~").exists()
    (store.root / ".draft.tmp").unlink()
    (store.root / "jobs" / "notes~").unlink()
    assert snapshot(store.root) == before
    assert not list(store.root.rglob(".*.hazardkit-tmp"))


def test_mixing_runs_is_refused(tmp_path):
    store = RunStore(tmp_path / "run")
    store.init(INFO)
    with pytest.raises(BadInput, match="different plan_sha256"):
        store.init({**INFO, "plan_sha256": "other"})


def test_sigkill_then_resume_matches_uninterrupted_run(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = str(ROOT / "tests" / "fake_forge_worker.py")
    reference = tmp_path / "reference"
    subprocess.run([sys.executable, script, str(reference), "30", "0"], check=True, env=env, timeout=120)

    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, script, str(killed), "30", "0.05"], env=env)
    deadline = time.time() + 60
    while time.time() < deadline:
        done = len(list((killed / "jobs").rglob("*.json"))) if (killed / "jobs").exists() else 0
        if done >= 8:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(list((killed / "jobs").rglob("*.json")))
    assert 0 < partial < 30, "the run must be killed part-way"
    subprocess.run([sys.executable, script, str(killed), "30", "0"], check=True, env=env, timeout=120)
    assert snapshot(killed) == snapshot(reference)
    assert len(list((killed / "jobs").rglob("*.json"))) == 30


def test_ray_engine_gives_identical_outputs(tmp_path):
    local = RunStore(tmp_path / "local")
    local.init(INFO)
    run_jobs(make_jobs(10), local, FakeWorkerFactory(), progress=False)
    on_ray = RunStore(tmp_path / "ray")
    on_ray.init(INFO)
    summary = run_jobs(make_jobs(10), on_ray, FakeWorkerFactory(), engine="ray", num_workers=2, progress=False)
    assert summary.processed == 10
    assert snapshot(on_ray.root) == snapshot(local.root)
