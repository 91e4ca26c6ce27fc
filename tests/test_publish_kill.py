"""A publish killed at any moment leaves the dataset folder loadable as either the old or the new release.

The child publishes a bigger new release over a copy of an old one and is SIGKILLed at delays spread over
the whole publish (measured first, in the same run); after every kill `load_dataset` must load the folder
with exactly the old or the new row count, and the next publish must remove what the killed one left.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHILD = [sys.executable, "-m", "tests.kill.publish_child"]


def _start(folder: Path, version: str, per_scenario: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([*CHILD, str(folder), version, str(per_scenario)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


def _rows(folder: Path, cache: Path) -> int:
    import datasets

    return len(datasets.load_dataset(str(folder), "default", split="test", cache_dir=str(cache)))


def _leftovers(folder: Path) -> list[str]:
    beside = [p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.publish-")]
    inside = [p.name for p in (folder / "data").iterdir() if p.name.startswith(".")]
    return beside + inside


@pytest.mark.slow
def test_sigkill_at_any_point_leaves_old_or_new_release(tmp_path):
    pristine = tmp_path / "pristine" / "movsafebench"
    assert _start(pristine, "1.0.0", 1).wait(60) == 0
    old_rows = _rows(pristine, tmp_path / "cache-old")
    # measure one full publish of the new release, to spread the kills over it
    timing = tmp_path / "timing" / "movsafebench"
    shutil.copytree(pristine, timing)
    t0 = time.perf_counter()
    assert _start(timing, "1.1.0", 4).wait(120) == 0
    duration = time.perf_counter() - t0
    new_rows = _rows(timing, tmp_path / "cache-new")
    assert new_rows > old_rows

    outcomes = {"old": 0, "new": 0}
    interrupted = 0
    kills = 14  # spread evenly over the publish; then, on a loaded machine, more at random points until the
    # kills have landed before the swap, after it and inside the transaction (at most 40 in all)
    rng = random.Random(0)
    for i in range(40):
        if i >= kills and outcomes["old"] and outcomes["new"] and interrupted:
            break
        folder = tmp_path / f"k{i}" / "movsafebench"
        shutil.copytree(pristine, folder)
        proc = _start(folder, "1.1.0", 4)
        time.sleep(duration * (i / (kills - 1) if i < kills else rng.uniform(0.1, 1.0)))
        finished = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        interrupted += not finished and bool(_leftovers(folder))
        rows = _rows(folder, tmp_path / f"cache-{i}")
        assert rows in (old_rows, new_rows), (i, rows)
        outcomes["old" if rows == old_rows else "new"] += 1
        if i % 4 == 0:  # the next publish removes what the killed one left behind
            assert _start(folder, "1.1.0", 4).wait(120) == 0
            assert _leftovers(folder) == [] and _rows(folder, tmp_path / f"cache-{i}b") == new_rows
    assert outcomes["old"] and outcomes["new"], outcomes  # the kills landed before and after the swap
    assert interrupted, "no kill landed inside the publish: the test proved nothing"


def test_a_second_publish_into_the_same_folder_is_refused_naming_the_holder(tmp_path):
    """While one publish holds the folder, a second one exits 2 naming its PID; afterwards it goes through."""
    from click.testing import CliRunner

    from builder.cli import cli
    from eval_kit.folder_lock import folder_lock

    folder = tmp_path / "srb"
    with folder_lock(tmp_path, "publish srb", lock_name=".srb.hazardkit.lock"):
        code = subprocess.run([sys.executable, "-m", "builder.cli", "publish", "saferelbench", "--config", "demo",
                               "--version", "0.1.0", "--out", str(folder)], cwd=ROOT, capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert code.returncode == 2, code.stderr
        assert f"process {os.getpid()} (`hazardkit publish srb`) is already using this folder" in code.stderr
        assert not folder.exists()
    result = CliRunner().invoke(cli, ["publish", "saferelbench", "--config", "demo", "--version", "0.1.0",
                                      "--out", str(folder)])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / ".srb.hazardkit.lock").exists()
