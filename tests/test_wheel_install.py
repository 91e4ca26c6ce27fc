"""The eval kit installs as a wheel and works outside a checkout: schemas and metric modules are package data.

Builds the wheel from this tree, installs it (`pip install --no-deps`) into a fresh virtual environment whose
only other packages are the test environment's dependencies (linked with a .pth file, so no download and no
editable hazardkit on the path), then runs `tests/wheel/outside_checkout.py` from an empty folder outside the
checkout: eval --backend baseline, score, score run, validate and leaderboard on dataset folders given by
path, and evaluate.load of every metric module.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(wheels), str(ROOT)], check=True, capture_output=True, cwd=tmp_path)
    wheel = next(wheels.glob("hazardkit-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], check=True,
                   capture_output=True)
    # dependencies from this environment; its site folder's own .pth files (the editable hazardkit) are NOT run
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "zz_test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    work = tmp_path / "outside"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env.update(HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    result = subprocess.run(
        [str(python), str(ROOT / "tests" / "wheel" / "outside_checkout.py"), str(work),
         str(ROOT / "manifests" / "saferelbench" / "demo.jsonl"),
         str(ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo" / "annotations.jsonl")],
        cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:] + result.stdout[-2000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(found["eval_kit"]).is_relative_to(env_dir), found["eval_kit"]  # the wheel, not the checkout
    assert 0 <= found["msb_run"] <= 1 and found["msb_run"] == found["msb_score"]
    assert found["msb_validate"].startswith("ok: 30 predictions")
    assert found["srb_run"] == 1.0 and found["srb_validate"].startswith("ok:")
    assert found["bd_score"] == 1.0 and found["bd_validate"].startswith("ok:")
    assert found["leaderboard"]
    assert set(found["metrics"]) == {"movsafebench", "bd_hazardvlm", "saferelbench"}
    assert all(Path(m["path"]).is_relative_to(env_dir) for m in found["metrics"].values())
    assert found["msb_metric"] == 0.5
