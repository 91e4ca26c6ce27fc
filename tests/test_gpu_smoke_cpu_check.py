"""benchmarks/gpu_smoke.sh --cpu-check: the GPU smoke script's code paths on tiny configs, so it cannot rot.

The real-size run needs an NVIDIA GPU (not available to the test suite); this runs the same script, the
same hazardkit backends and the same FluxFill editor with tiny configs, and checks that the vLLM step,
which needs vLLM and a GPU, says it was skipped and why instead of printing a figure.
"""

import os
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
ROOT = Path(__file__).resolve().parents[1]


def test_gpu_smoke_cpu_check_runs_every_path_it_can():
    from eval_kit.runners.backends.setup_checks import installed

    result = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_smoke.sh"), "--cpu-check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "gpu_smoke (CPU check, tiny configs)" in out
    assert "transformers: 4 samples" in out and "samples/s" in out and "failed 0" in out
    if installed("diffusers"):
        assert "diffusers FluxFill edit (tiny FLUX.1-Fill-dev" in out and "s/edit" in out
    if not installed("vllm"):
        assert 'vllm: SKIPPED (vllm is not installed here: pip install "hazardkit[vllm]")' in out
    else:
        assert "vllm: SKIPPED (no CUDA GPU" in out
    assert "vLLM / transformers throughput: not measured (a step was skipped)" in out
    assert "batch 2: 4 samples" in out and "batch auto: 4 samples" in out and "batch used 4" in out
    assert "batch auto / best fixed (batch 2):" in out
    assert "Traceback" not in result.stderr
