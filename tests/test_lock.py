"""`make install` installs constraints.txt's versions, and a drift from them is named, not left as a bare diff."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from tests import lock


def test_the_suite_runs_on_the_locked_versions() -> None:
    # the Makefile installs with `-c constraints.txt`; a missing or dropped -c shows here first
    assert lock.lock_drift() == ""


def test_constraints_pin_every_line_and_leave_torch_to_the_makefile() -> None:
    lines = [x for x in lock.LOCK.read_text().splitlines() if x and not x.startswith("#")]
    assert lines and all(x.count("==") == 1 and " " not in x for x in lines)
    names = {x.split("==")[0].lower() for x in lines}
    assert "torch" not in names and "hazardkit" not in names
    assert {"opencv-python-headless", "numpy", "pillow", "bddl"} <= names


def test_drift_names_the_package_and_both_versions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    numpy = metadata.version("numpy")
    fake = tmp_path / "constraints.txt"
    fake.write_text(f"# a comment==1\nnumpy==0.0.1\nPillow=={metadata.version('pillow')}\nno-such-package==1.0\n")
    monkeypatch.setattr(lock, "LOCK", fake)
    drift = lock.lock_drift()
    assert drift.startswith("environment differs from constraints.txt (2 packages)")
    assert f"numpy {numpy} (locked 0.0.1)" in drift and "no-such-package absent (locked 1.0)" in drift
    assert "Pillow" not in drift  # name case differs from the distribution's: canonicalised, so no drift
