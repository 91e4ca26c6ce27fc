"""Issue 32: every file and folder a command creates honours the umask, swept over every writing command's output
tree under umask 022 and 077 (`data/<config>/` used to be 0700 under 022: tempfile.mkdtemp).

Commands: forge synthetic, sources scan, forge plan, forge run, forge export, publish (MovSafeBench from the export,
BD-HazardVLM's annotations), reconstruct, saferel generate, eval + score, leaderboard add / render / space.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.cli_helpers import hk

TARGETS = {"static": {"cone": 1}, "motion": {"dog": 1}}
ROOT = Path(__file__).resolve().parents[1]


def _build_everything(base: Path) -> list[Path]:
    """Run every writing command into `base/<command>/...`; return the output trees (folders or files)."""
    from eval_kit.testing.synthetic_datasets import write_parquet_folder

    hk("forge", "synthetic", base / "photos", "-n", "2", "--width", "320", "--height", "180")
    scanned = [json.loads(x) for x in (base / "photos" / "sources.jsonl").read_text().splitlines()]
    index = base / "inputs" / "index.jsonl"
    index.parent.mkdir()
    index.write_text("".join(json.dumps({"id": s["id"], "path": s["path"], "agent": s["agent"],
                                         "gt_action": s["gt_action"]}) + "\n" for s in scanned))
    (base / "inputs" / "targets.json").write_text(json.dumps(TARGETS))
    hk("sources", "scan", "folder", "--index", index, "--root", base / "photos", "--dataset", "roadpics",
       "--no-hood", "--out", base / "manifests" / "sources.jsonl")
    hk("forge", "plan", base / "photos" / "sources.jsonl", "--out", base / "plans" / "plan.jsonl", "--targets",
       base / "inputs" / "targets.json")
    hk("forge", "run", base / "plans" / "plan.jsonl", "--out", base / "run", "--no-progress")
    hk("forge", "export", base / "run", "--out", base / "records", "--scope", "all")
    hk("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input", base / "records", "--out",
       base / "repos" / "movsafebench", "--date", "2026-12-01")
    hk("reconstruct", "bd-hazardvlm", "--demo", "--out", base / "repos" / "bd")
    hk("publish", "bd-hazardvlm", "--config", "demo_annotations", "--version", "0.1.0", "--input",
       ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo", "--out", base / "repos" / "bd", "--date", "2026-12-01")
    # lay_sod: a bddl activity with a support_removal pair (one pair keeps the generation short)
    hk("saferel", "generate", "--risk", "support_removal=1", "--activity", "lay_sod",
       "--out", base / "saferel" / "samples.jsonl")
    data = write_parquet_folder(base / "eval-data" / "ds", 8)
    hk("eval", "movsafebench", "-m", "majority", "-b", "baseline", "--data", data, "--config", "demo", "--out",
       base / "runs" / "r", "--no-progress")
    hk("score", "run", base / "runs" / "r", "--json")
    hk("leaderboard", "add", base / "runs" / "r" / "scores.json", "--table", base / "board-table" / "results.parquet")
    hk("leaderboard", "render", "--table", base / "board-table" / "results.parquet", "--out", base / "board")
    hk("leaderboard", "space", "--out", base / "space")
    return [base / name for name in ("photos", "manifests", "plans", "run", "records", "repos", "saferel", "runs",
                                     "board-table", "board", "space")]


@pytest.mark.slow
@pytest.mark.parametrize("umask", [0o022, 0o077], ids=["umask022", "umask077"])
def test_every_command_honours_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        trees = _build_everything(tmp_path)
    finally:
        os.umask(old)
    wrong = []
    count = 0
    for tree in trees:
        assert tree.exists(), tree
        for path in [tree, *tree.rglob("*")]:
            if path.is_symlink():
                continue
            mode = stat.S_IMODE(path.lstat().st_mode)
            want = (0o777 if path.is_dir() else 0o666) & ~umask
            count += 1
            if mode != want:
                wrong.append(f"{path.relative_to(tmp_path)} {oct(mode)} (want {oct(want)})")
    assert count > 50, count  # the sweep saw the trees
    assert not wrong, wrong[:20]
