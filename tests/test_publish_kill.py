"""A publish killed at any moment leaves the dataset folder loadable as either the old or the new release.

The child publishes a bigger new release over a copy of an old one. It stops at each step that changes the
disk (every rename of a written file, and either side of the swap of the stage folder with the dataset folder)
and waits for the parent (tests/kill/publish_child.py --checkpoints), so each kill lands at a known step
whatever the machine's load: no kill is timed. After every kill `load_dataset` must load the folder with the
old row count when the kill came before the swap and the new one after it, and the next publish must remove
what the killed one left, and only that: a maintainer's `.draft.tmp`, `.env.tmp` and `notes~` (in the folder
and in data/) survive every kill and the next publish byte for byte.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHILD = [sys.executable, "-m", "tests.kill.publish_child"]
WAIT = 300  # seconds a child may take for one step on a loaded machine: a bound, never a measurement


def _start(folder: Path, version: str, per_scenario: int, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([*CHILD, str(folder), version, str(per_scenario), *extra], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


def _run_to(proc: subprocess.Popen, kill_at: int | None) -> list[str]:
    """Let the child pass every checkpoint before `kill_at`, SIGKILL it at that one (None: run to the end)."""
    labels = []
    for line in proc.stdout:
        if not line.startswith("at "):
            assert line.strip() == "done", line
            break
        number, label = line.split(" ", 2)[1:]
        labels.append(label.strip())
        if int(number) == kill_at:
            proc.send_signal(signal.SIGKILL)
            proc.wait(WAIT)
            return labels
        proc.stdin.write("go\n")
        proc.stdin.flush()
    assert proc.wait(WAIT) == 0, proc.stderr.read()
    return labels


def _rows(folder: Path, cache: Path) -> int:
    import datasets

    return len(datasets.load_dataset(str(folder), "default", split="test", cache_dir=str(cache)))


# a maintainer's files whose names look like temp files: never taken for a killed publish's debris
MAINTAINER_FILES = {".draft.tmp": b"draft\n", ".env.tmp": b"TOKEN=keep\n", "notes~": b"notes\n",
                    "data/.draft.tmp": b"data draft\n", "data/.env.tmp": b"x", "data/notes~": b"data notes\n",
                    "data/.default.tmp-mine": b"looks like an old stage\n"}


def _plant_maintainer_files(folder: Path) -> None:
    for rel, data in MAINTAINER_FILES.items():
        (folder / rel).write_bytes(data)


def _maintainer_files_intact(folder: Path) -> bool:
    return all((folder / rel).read_bytes() == data for rel, data in MAINTAINER_FILES.items())


def _leftovers(folder: Path) -> list[str]:
    beside = [p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.")
              and not p.name.endswith(".hazardkit.lock")]
    inside = [p.name for p in [*folder.iterdir(), *(folder / "data").iterdir()]
              if p.name.startswith(".") and p.relative_to(folder).as_posix() not in MAINTAINER_FILES]
    return beside + inside


def _kill_points(labels: list[str]) -> list[int]:
    """Checkpoints (1-based) to kill at: both sides of the swap, the first and last write, and writes spread
    evenly over the rest (at most 12 in all, to keep the test short)."""
    swap = labels.index("before swap") + 1
    spread = {1 + round(i * (swap - 2) / 7) for i in range(8)}
    return sorted(spread | {1, swap - 1, swap, swap + 1, len(labels)})


@pytest.mark.slow
def test_sigkill_at_any_point_leaves_old_or_new_release(tmp_path):
    pristine = tmp_path / "pristine" / "movsafebench"
    assert _run_to(_start(pristine, "1.0.0", 1), None) == []  # the old release (no checkpoints asked for)
    old_rows = _rows(pristine, tmp_path / "cache-old")
    _plant_maintainer_files(pristine)
    # a full run of the new release through the checkpoints: which steps there are, and the new row count
    full = tmp_path / "full" / "movsafebench"
    shutil.copytree(pristine, full)
    labels = _run_to(_start(full, "1.1.0", 4, "--checkpoints"), None)
    new_rows = _rows(full, tmp_path / "cache-new")
    assert new_rows > old_rows and labels.count("before swap") == 1 and labels[-1] != "before swap"
    swap = labels.index("before swap") + 1

    outcomes = {"old": 0, "new": 0}
    interrupted = 0
    for i, kill_at in enumerate(_kill_points(labels)):
        folder = tmp_path / f"k{kill_at}" / "movsafebench"
        shutil.copytree(pristine, folder)
        seen = _run_to(_start(folder, "1.1.0", 4, "--checkpoints"), kill_at)
        assert seen == labels[:kill_at]  # the same steps in the same order: the kill landed where planned
        rows = _rows(folder, tmp_path / f"cache-{kill_at}")
        expected = old_rows if kill_at <= swap else new_rows  # killed at "before swap": nothing swapped yet
        assert rows == expected, (kill_at, labels[kill_at - 1], rows)
        assert _maintainer_files_intact(folder), (kill_at, labels[kill_at - 1])
        outcomes["old" if rows == old_rows else "new"] += 1
        interrupted += kill_at < swap and bool(_leftovers(folder))
        if i % 3 == 0:  # the next publish removes what the killed one left behind
            assert _run_to(_start(folder, "1.1.0", 4), None) == []
            assert _leftovers(folder) == [] and _rows(folder, tmp_path / f"cache-{kill_at}b") == new_rows
            assert _maintainer_files_intact(folder), kill_at
    assert outcomes["old"] and outcomes["new"], outcomes  # kills landed before and after the swap
    assert interrupted, "no kill left a half-written stage: the test proved nothing"


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
