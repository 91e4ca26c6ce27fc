"""Kill a run with SIGKILL mid-way, resume it: the raw log ends identical to an uninterrupted run's."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from eval_kit.testing.synthetic_datasets import write_jsonl

# A child process that runs the harness with a stub model slow enough to be killed in the middle.
CHILD = """
import sys, time
from eval_kit import registry
from eval_kit.runners import harness
from eval_kit.runners.backends.base import Backend

class Slow(Backend):
    name = "slow"
    def settings(self):
        return {"v": 1}
    def generate(self, samples):
        time.sleep(float(sys.argv[3]))
        return [f"Answer: {'ABC'[sum(map(ord, s.id)) % 3]} because the path is clear" for s in samples]

task = registry.make_task("movsafebench", data=sys.argv[1])
harness.run(task, Slow(), sys.argv[2], model="slow-stub", batch_size=3, progress=False)
"""


def _run_child(data: Path, out: Path, delay: float) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.Popen([sys.executable, "-c", CHILD, str(data), str(out), str(delay)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_then_resume_matches_uninterrupted(tmp_path):
    data = write_jsonl(tmp_path / "data", 60, seed=9)
    reference = _run_child(data, tmp_path / "uninterrupted", 0.0)
    assert reference.wait(timeout=120) == 0, reference.stderr.read().decode()

    killed_out = tmp_path / "killed"
    kills = 0
    for _ in range(2):  # kill twice, at different points
        child = _run_child(data, killed_out, 0.05)
        target = _lines(killed_out / "raw.jsonl") + 9
        deadline = time.monotonic() + 60
        while _lines(killed_out / "raw.jsonl") < target and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            kills += 1
        child.wait(timeout=30)
    assert kills == 2
    partial = _lines(killed_out / "raw.jsonl")
    assert 0 < partial < 60, partial
    resumed = _run_child(data, killed_out, 0.0)
    assert resumed.wait(timeout=120) == 0, resumed.stderr.read().decode()

    final = (killed_out / "raw.jsonl").read_bytes()
    assert final == (tmp_path / "uninterrupted" / "raw.jsonl").read_bytes()
    ids = [json.loads(x)["id"] for x in final.decode().splitlines()]
    expected = [json.loads(x)["id"] for x in data.read_text().splitlines()]
    assert ids == expected  # nothing lost, nothing repeated, in dataset order
