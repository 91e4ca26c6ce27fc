"""Tests do not depend on what `make demo` (or a publish, or a run) left in the checkout.

`make demo` writes the git-ignored dataset folders (`movsafebench/data/demo/`, `bd_hazardvlm/data/`,
`saferelbench/data/`), `out/demo/` and runs. A test that resolves a benchmark's data from the working
directory sees them: `make demo; make test` failed every time because of one such test. This test copies the
tracked files of the checkout into a scratch folder, fills it with the state `make demo` leaves (the real
commands where they are quick, a synthetic stand-in for the slow MovSafeBench forge run), and runs there the
test modules that resolve data from the working directory: they must pass as on a fresh clone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the modules that call commands with a benchmark's default (working-directory) dataset location
CWD_MODULES = ["tests/test_lmms_export.py", "tests/test_hub_data.py", "tests/test_bd_cli.py",
               "tests/test_saferel_plans_prompts.py"]


def _tracked_copy(dest: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, listed.decode().split("\0")):
        source = ROOT / rel
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # tracked links (bd-hazardvlm -> bd_hazardvlm) stay links
            (dest / rel).symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, dest / rel)


@pytest.mark.slow
def test_tests_pass_beside_what_make_demo_leaves(tmp_path):
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    copy = tmp_path / "checkout"
    _tracked_copy(copy)
    env = {**os.environ, "PYTHONPATH": str(copy), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    cli = [sys.executable, "-m", "builder.cli"]
    for args in (["reconstruct", "bd-hazardvlm", "--demo"],
                 ["publish", "bd-hazardvlm", "--config", "demo_annotations", "--version", "0.1.0"],
                 ["publish", "saferelbench", "--config", "demo", "--version", "0.1.0"]):
        done = subprocess.run([*cli, *args], cwd=copy, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stderr)
    from eval_kit.testing.synthetic_datasets import write_parquet_folder

    write_parquet_folder(copy / "movsafebench", 12, seed=1)  # stands in for the forge-made demo config
    (copy / "out" / "demo" / "runs").mkdir(parents=True)
    assert (copy / "bd_hazardvlm" / "data" / "demo").is_dir() and (copy / "saferelbench" / "data").is_dir()
    assert list((copy / "movsafebench" / "data" / "demo").glob("*.parquet"))
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *CWD_MODULES],
                           cwd=copy, env=env, capture_output=True, text=True)
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
