"""eval_kit.folder_lock: one holder per folder, a second process refused by PID, stale lock files ignored."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.errors import BadInput
from eval_kit.folder_lock import LOCK_NAME, folder_lock
from eval_kit.testing.synthetic_datasets import write_jsonl

ROOT = Path(__file__).resolve().parents[1]
HOLDER = """
import sys, time
from pathlib import Path
from eval_kit.folder_lock import folder_lock
with folder_lock(Path(sys.argv[1]), "forge run demo"):
    print("locked", flush=True)
    time.sleep(60)
"""


def _hold_in_child(folder: Path) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout.readline().strip() == b"locked"
    return child


def test_lock_is_exclusive_records_its_holder_and_is_removed(tmp_path):
    folder = tmp_path / "run"
    with folder_lock(folder, "eval movsafebench") as path:
        assert path == folder / LOCK_NAME
        holder = json.loads(path.read_text())
        assert holder["pid"] == os.getpid() and holder["command"] == "eval movsafebench"
        with pytest.raises(BadInput, match=r"this process .*eval movsafebench.* is already using this folder"), \
                folder_lock(folder, "publish"):
            pass
    assert not (folder / LOCK_NAME).exists()
    with folder_lock(folder, "again"):  # free again
        pass


def test_second_process_is_refused_and_a_killed_holder_leaves_no_block(tmp_path):
    folder = tmp_path / "shared"
    child = _hold_in_child(folder)
    try:
        with pytest.raises(BadInput) as refused, folder_lock(folder, "eval"):
            pass
        assert f"process {child.pid} (`hazardkit forge run demo`) is already using this folder" in str(refused.value)
        assert "wait for it to finish" in str(refused.value)
        data = write_jsonl(tmp_path / "data", 3)
        code = CliRunner().invoke(cli, ["eval", "movsafebench", "-m", "random", "-b", "baseline", "--data", str(data),
                                        "--out", str(folder), "--no-progress"])
        assert code.exit_code == 2 and f"process {child.pid}" in code.output and "Traceback" not in code.output
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    assert (folder / LOCK_NAME).exists()  # stale: its holder died without cleaning up
    assert json.loads((folder / LOCK_NAME).read_text())["pid"] == child.pid
    started = time.monotonic()
    with folder_lock(folder, "eval"):
        assert json.loads((folder / LOCK_NAME).read_text())["pid"] == os.getpid()
    assert time.monotonic() - started < 1
    assert not (folder / "raw.jsonl").exists()  # the refused eval wrote nothing
