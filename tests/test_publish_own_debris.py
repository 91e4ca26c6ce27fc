"""Issue 32: publish removes only its own debris, and release names are matched whole.

A maintainer's `.draft.tmp`, `.env.tmp` and `notes~` (in the dataset folder, data/ and a config folder) survive
publish byte for byte; a killed publish's stage is removed only when it has our name AND our marker. (The kill at
each step is tests/test_publish_kill.py, which plants the same files.) Versions, tags and config names are
full-match: a trailing newline, a path character or another script's digits is exit 2 in one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import invoke

ROOT = Path(__file__).resolve().parents[1]
BD_DEMO = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo"
MINE = {".draft.tmp": b"draft\n", ".env.tmp": b"SECRET=1\n", "notes~": b"my notes\n",
        "data/.draft.tmp": b"d\n", "data/.env.tmp": b"e\n", "data/notes~": b"n\n",
        "data/.demo_annotations.tmp-x": b"looks like an old version's debris, is mine\n",
        "data/demo_annotations/notes~": b"config notes\n", "data/demo_annotations/.draft.tmp": b"cd\n"}


def _publish(out: Path, version: str = "0.1.0", config: str = "demo_annotations") -> tuple[int, str]:
    return invoke("publish", "bd-hazardvlm", "--config", config, "--version", version, "--input", BD_DEMO,
                  "--out", out, "--date", "2026-12-01")


def _dead_pid() -> int:
    """The PID of a process that has exited (so a stage named after it belongs to a dead publish)."""
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


def test_a_maintainers_files_survive_publish_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    code, text = _publish(out)
    assert code == 0, text
    for rel, data in MINE.items():
        (out / rel).write_bytes(data)
    for version in ("0.1.1", "0.2.0"):  # a republish of the config, then again
        code, text = _publish(out, version)
        assert code == 0, text
        assert {rel: (out / rel).read_bytes() for rel in MINE} == MINE, version
    manifest = json.loads((out / "release-manifest.json").read_text())
    assert not any(name.endswith(("~", ".tmp")) for name in manifest["files"]), "hidden/temp files never released"
    assert sorted(p.name for p in (out / "data" / "demo_annotations").glob("*.parquet")) == [
        "test-00000-of-00001.parquet"]


def test_only_a_dead_publishs_marked_stage_is_removed(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    code, text = _publish(out)
    assert code == 0, text
    dead = _dead_pid()
    ours = tmp_path / f".ds.hazardkit-stage-{dead}-0123456789abcdef"
    ours.mkdir()
    (ours / ".hazardkit-stage").write_text(json.dumps({"dataset": "ds", "stage": ours.name, "pid": dead}))
    (ours / "README.md").write_text("half a release\n")
    empty = tmp_path / f".ds.hazardkit-stage-{dead}-fedcba9876543210"  # killed before its marker was written
    empty.mkdir()
    kept = {
        # our name but no marker, and something inside: not recognisably ours
        tmp_path / f".ds.hazardkit-stage-{dead}-00000000000000aa": "notes\n",
        # an older version's stage name: a person may have made it, so it is kept
        tmp_path / f".ds.publish-{dead}-0": "old\n",
        # our name and marker, but the process is alive (this one): a publish in progress
        tmp_path / f".ds.hazardkit-stage-{os.getpid()}-00000000000000bb": "live\n",
        tmp_path / ".draft.tmp": None,
    }
    for path, text in kept.items():
        if text is None:
            path.write_text("beside\n")
            continue
        path.mkdir()
        (path / "file").write_text(text)
    live = tmp_path / f".ds.hazardkit-stage-{os.getpid()}-00000000000000bb"
    (live / ".hazardkit-stage").write_text(json.dumps({"dataset": "ds", "stage": live.name, "pid": os.getpid()}))
    code, text = _publish(out, "0.1.1")
    assert code == 0, text
    assert not ours.exists() and not empty.exists()
    assert all(path.exists() for path in kept)
    assert not (out / ".hazardkit-stage").exists(), "the marker never stays in the published folder"


def test_a_stray_marker_in_the_dataset_folder_goes_back_to_its_stage(tmp_path: Path) -> None:
    """A kill between the swap and handing the marker over leaves it in the new release; the next publish moves
    it back into the old release's stage and removes that stage."""
    out = tmp_path / "ds"
    code, text = _publish(out)
    assert code == 0, text
    dead = _dead_pid()
    stage = tmp_path / f".ds.hazardkit-stage-{dead}-0123456789abcdef"
    stage.mkdir()
    (stage / "README.md").write_text("the old release\n")
    (out / ".hazardkit-stage").write_text(json.dumps({"dataset": "ds", "stage": stage.name, "pid": dead}))
    code, text = _publish(out, "0.1.1")
    assert code == 0, text
    assert not stage.exists() and not (out / ".hazardkit-stage").exists()


@pytest.mark.parametrize("version", ["1.0.0\n", "1.0.0\r", " 1.0.0", "1.0.0/../x", "1.0.0-rc.1/..", "v1.0.0",
                                     "1.0", "01.0.0", "\uff11.0.0", "1.0.0-", "1.0.0+build", "1.0.0-" + "a" * 80])
def test_versions_are_full_match_semver(tmp_path: Path, version: str) -> None:
    code, text = _publish(tmp_path / "ds", version)
    assert code == 2, text
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "is not a semantic version" in errors[0] and "--version" in errors[0], text
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize("config", ["demo\n", "../demo", "a/b", "a.b", ".hidden", "-x", "d\u00e9mo", "x" * 65, ""])
def test_config_names_are_matched_whole(tmp_path: Path, config: str) -> None:
    code, text = _publish(tmp_path / "ds", config=config)
    assert code == 2, text
    assert "is not a config name" in text and "Traceback" not in text


def test_good_release_names_pass_and_the_tag_is_exact(tmp_path: Path) -> None:
    from builder.publish.release import parse_version, tag_of

    assert parse_version("1.2.3-rc.1") == (1, 2, 3, "rc.1")
    assert tag_of("1.0.0") == "v1.0.0"
    code, text = _publish(tmp_path / "ds", "1.0.0-rc.1")
    assert code == 0, text
    manifest = json.loads((tmp_path / "ds" / "release-manifest.json").read_text())
    assert manifest["tag"] == "v1.0.0-rc.1" and manifest["version"] == "1.0.0-rc.1"
