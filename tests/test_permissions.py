"""Files and folders hazardkit writes honour the umask (mkstemp / mkdtemp alone would make them 0600 / 0700)."""

import os
import stat

import pytest

from eval_kit.jsonl import atomic_write_json, atomic_write_text, current_umask, default_mode


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_atomic_writes_are_0644_under_umask_022(tmp_path, umask_022):
    assert current_umask() == 0o022 and default_mode() == 0o644 and default_mode(folder=True) == 0o755
    atomic_write_text(tmp_path / "new" / "page.html", "<html></html>")
    assert _mode(tmp_path / "new" / "page.html") == 0o644
    assert _mode(tmp_path / "new") == 0o755
    legacy = tmp_path / "scores.json"
    legacy.write_text("{}")
    legacy.chmod(0o600)  # written by an older version
    atomic_write_json(legacy, {"a": 1}, durable=False)
    assert _mode(legacy) == 0o644


def test_atomic_writes_follow_a_stricter_umask(tmp_path):
    old = os.umask(0o077)
    try:
        atomic_write_text(tmp_path / "private.txt", "x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "private.txt") == 0o600


def test_a_run_folder_and_its_scores_are_world_readable(tmp_path, umask_022):
    """What the issue saw (owner-only outputs): an eval run and `score run` give 0644 files in 0755 folders."""
    from eval_kit.testing.synthetic_datasets import write_parquet_folder
    from tests.cli_helpers import hk

    data = write_parquet_folder(tmp_path / "ds", 12)
    out = tmp_path / "runs" / "r"
    hk("eval", "movsafebench", "-m", "majority", "-b", "baseline", "--data", data, "--config", "demo", "--out", out,
       "--no-progress")
    hk("score", "run", out, "--json")
    written = [out, *out.rglob("*")]
    assert any(p.name == "scores.json" for p in written)
    for path in written:
        assert _mode(path) == (0o755 if path.is_dir() else 0o644), path
