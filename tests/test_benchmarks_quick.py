"""Every benchmark script runs in quick mode and prints its figures, so none can rot unnoticed (a script that
crashed after its first two figures went unseen for a release: nothing ran it).

Scripts are found by globbing `benchmarks/*.py`, so a new script is covered without editing this file. Quick
mode is for completeness, not speed: figures printed here are smoke sizes, never compared with targets.
`gpu_smoke.py --quick` is `--cpu-check`, which tests/test_gpu_smoke_cpu_check.py already runs and checks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import run_all  # noqa: E402

COVERED_ELSEWHERE = {"gpu_smoke.py"}  # tests/test_gpu_smoke_cpu_check.py
SCRIPTS = [s for s in run_all.scripts() if s.name not in COVERED_ELSEWHERE]


def test_every_benchmark_script_is_covered():
    names = {s.name for s in run_all.scripts()}
    assert names >= COVERED_ELSEWHERE and len(SCRIPTS) >= 15, sorted(names)
    assert (ROOT / "tests" / "test_gpu_smoke_cpu_check.py").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_benchmark_script_runs_in_quick_mode(script):
    row = run_all.run(script, quick=True, timeout=900)
    assert row["code"] == 0, f"{script.name} exited {row['code']}: {row['error']}"
    assert row["figures"], f"{script.name} printed no figure"


def test_the_runner_writes_one_table_and_marks_failures(tmp_path, monkeypatch):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("import sys\nassert '--quick' in sys.argv\nprint('throughput: 12.5 rows/s, ratio 1.30')\n")
    bad.write_text("print('first figure 1.0')\nraise SystemExit('broken after 1 figure')\n")
    monkeypatch.setattr(run_all, "scripts", lambda: [bad, good])
    out = tmp_path / "bench.md"
    monkeypatch.setattr(sys, "argv", ["run_all.py", "--quick", "--out", str(out)])
    assert run_all.main() == 1
    text = out.read_text()
    assert "| good.py | ok |" in text and "throughput: 12.5 rows/s, ratio 1.30" in text
    assert "| bad.py | FAILED (1) |" in text and "error: broken after 1 figure" in text
