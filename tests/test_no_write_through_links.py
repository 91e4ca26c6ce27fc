"""Issue 32: every command that writes into a folder refuses a symbolic link it did not make on any path it writes,
moves or removes (exit 2, one line naming it), and leaves the link's target untouched byte for byte.

For each command, a good output is made once; then, for each path that command writes (the folder itself, data/,
manifests/, a config folder, a shard, the card, a run's jobs/, a single output file, ...), a fresh copy of that
output gets a link planted at that path pointing into a victim folder, and the command is run again over it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tests.cli_helpers import invoke

ROOT = Path(__file__).resolve().parents[1]
BD_DEMO = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo"
TARGETS = {"static": {"cone": 1}, "motion": {"dog": 1}}


def _victim(tmp: Path) -> Path:
    """A maintainer's folder a planted link points into (the issue's `victim/demo_annotations/precious.txt`)."""
    victim = tmp / "victim"
    (victim / "demo_annotations").mkdir(parents=True)
    (victim / "demo_annotations" / "precious.txt").write_text("keep\n")
    (victim / "precious.txt").write_text("also keep\n")
    (victim / "data").mkdir()
    (victim / "data" / "precious.parquet").write_bytes(b"not a shard of yours\n")
    return victim


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.rglob("*"))}


def _plant(out: Path, rel: str, victim: Path) -> Path:
    """Replace `out/rel` (or `out` itself when rel is "") by a link into the victim folder."""
    path = out / rel if rel else out
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    target = victim / ("precious.txt" if Path(rel).suffix else "demo_annotations" if rel else "")
    path.symlink_to(target if rel else victim)
    return path


def _refused(code: int, text: str, link: Path, victim: Path, before: dict[str, str]) -> None:
    assert code == 2, text
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "symbolic link" in errors[0], text
    assert "Traceback" not in text
    assert link.is_symlink(), "the planted link must stay as it was"
    assert _snapshot(victim) == before, "the link's target changed"


@pytest.fixture(scope="module")
def chain(tmp_path_factory) -> Path:
    """A tiny forge build: synthetic sources -> manifest -> plan -> run -> export."""
    root = tmp_path_factory.mktemp("chain")
    for args in (("forge", "synthetic", root / "photos", "-n", "2", "--width", "320", "--height", "180"),):
        code, out = invoke(*args)
        assert code == 0, out
    (root / "targets.json").write_text(json.dumps(TARGETS))
    for args in (("forge", "plan", root / "photos" / "sources.jsonl", "--out", root / "plan.jsonl", "--targets",
                  root / "targets.json", "--json"),
                 ("forge", "run", root / "plan.jsonl", "--out", root / "run", "--no-progress"),
                 ("forge", "export", root / "run", "--out", root / "records", "--scope", "edited")):
        code, out = invoke(*args)
        assert code == 0, out
    return root


PUBLISH_PATHS = ["", "data", "data/demo_annotations", "data/demo_annotations/test-00000-of-00001.parquet",
                 "manifests", "manifests/demo_annotations", "manifests/demo_annotations/image_manifest.jsonl",
                 "README.md", "croissant.json", "CHANGELOG.md", "release-manifest.json", "data/other_config"]


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pub") / "ds"
    code, text = _publish(out)
    assert code == 0, text
    return out


def _publish(out: Path) -> tuple[int, str]:
    return invoke("publish", "bd-hazardvlm", "--config", "demo_annotations", "--version", "0.1.0", "--input",
                  BD_DEMO, "--out", out, "--date", "2026-12-01")


@pytest.mark.parametrize("rel", PUBLISH_PATHS)
def test_publish_refuses_a_planted_link(published: Path, tmp_path: Path, rel: str) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "ds"
    if rel:
        shutil.copytree(published, out)
    link = _plant(out, rel, victim)
    before = _snapshot(victim)
    _refused(*_publish(out), link, victim, before)
    assert not list(tmp_path.glob(".ds.hazardkit-stage-*")), "a refused publish leaves no stage behind"


def test_the_issue_reproduction_is_refused_and_precious_survives(tmp_path: Path) -> None:
    """The issue's commands: a `data` link into the victim; publish used to delete victim/demo_annotations/."""
    victim = _victim(tmp_path)
    (tmp_path / "ds").mkdir()
    link = tmp_path / "ds" / "data"
    link.symlink_to(victim)
    before = _snapshot(victim)
    _refused(*_publish(tmp_path / "ds"), link, victim, before)
    assert (victim / "demo_annotations" / "precious.txt").read_text() == "keep\n"


@pytest.mark.parametrize("rel", ["", "run.json", "jobs", "images", "timings", "jobs/ab"])
def test_forge_run_refuses_a_planted_link(chain: Path, tmp_path: Path, rel: str) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "run"
    if rel:
        shutil.copytree(chain / "run", out)
    link = _plant(out, rel, victim)
    before = _snapshot(victim)
    _refused(*invoke("forge", "run", chain / "plan.jsonl", "--out", out, "--no-progress"), link, victim, before)


@pytest.mark.parametrize("rel", ["", "records.jsonl", "build.json"])
def test_forge_export_refuses_a_planted_link(chain: Path, tmp_path: Path, rel: str) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "records"
    if rel:
        shutil.copytree(chain / "records", out)
    link = _plant(out, rel, victim)
    before = _snapshot(victim)
    _refused(*invoke("forge", "export", chain / "run", "--out", out), link, victim, before)


@pytest.mark.parametrize("rel", ["", "data", "data/demo", "data/demo/test-00000-of-00001.parquet",
                                 "data/demo/report.json"])
def test_reconstruct_refuses_a_planted_link(tmp_path: Path, rel: str) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "bd"
    if rel:
        code, text = invoke("reconstruct", "bd-hazardvlm", "--demo", "--out", out)
        assert code == 0, text
    link = _plant(out, rel, victim)
    before = _snapshot(victim)
    _refused(*invoke("reconstruct", "bd-hazardvlm", "--demo", "--out", out), link, victim, before)


def test_single_file_outputs_refuse_a_planted_link(chain: Path, tmp_path: Path) -> None:
    """sources scan, forge plan, saferel generate and leaderboard add write one file: a link there is refused,
    not replaced (the table is refused before the results are read)."""
    victim = _victim(tmp_path)
    index = tmp_path / "index.jsonl"
    scanned = [json.loads(x) for x in (chain / "photos" / "sources.jsonl").read_text().splitlines()]
    index.write_text("".join(json.dumps({"id": s["id"], "path": str(chain / "photos" / s["path"]),
                                         "gt_action": s["gt_action"], "agent": s["agent"]}) + "\n" for s in scanned))
    before = _snapshot(victim)
    cases = {
        "scan.jsonl": ("sources", "scan", "folder", "--index", index, "--dataset", "roadpics", "--no-hood", "--out"),
        "plan.jsonl": ("forge", "plan", chain / "photos" / "sources.jsonl", "--targets", chain / "targets.json",
                       "--out"),
        "samples.jsonl": ("saferel", "generate", "--risk", "support_removal=1", "--out"),
        "results.parquet": ("leaderboard", "add", chain / "plan.jsonl", "--table"),
    }
    for name, args in cases.items():
        link = tmp_path / name
        link.symlink_to(victim / "precious.txt")
        _refused(*invoke(*args, link), link, victim, before)


@pytest.mark.parametrize("rel", ["", "images", "sources.jsonl"])
def test_forge_synthetic_refuses_a_planted_link(tmp_path: Path, rel: str) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "photos"
    out.mkdir()
    link = _plant(out, rel, victim)
    before = _snapshot(victim)
    _refused(*invoke("forge", "synthetic", out, "-n", "1", "--width", "64", "--height", "48"), link, victim, before)


@pytest.mark.parametrize("rel", ["", "app.py", "requirements.txt", "README.md"])
def test_leaderboard_space_refuses_a_planted_link(tmp_path: Path, rel: str) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "space"
    if rel:
        code, text = invoke("leaderboard", "space", "--out", out)
        assert code == 0, text
    link = _plant(out, rel, victim)
    before = _snapshot(victim)
    _refused(*invoke("leaderboard", "space", "--out", out), link, victim, before)


@pytest.mark.parametrize("rel", ["", "index.html", "leaderboard.md", "plots"])
def test_leaderboard_render_refuses_a_planted_link(tmp_path: Path, rel: str) -> None:
    """`leaderboard render` checks its --out before it reads a row (the check comes first in `render`)."""
    from eval_kit.errors import BadInput
    from eval_kit.leaderboard.render import render

    victim = _victim(tmp_path)
    out = tmp_path / "board"
    out.mkdir()
    link = _plant(out, rel, victim)
    before = _snapshot(victim)
    with pytest.raises(BadInput, match="symbolic link"):
        render([], out)
    assert link.is_symlink() and _snapshot(victim) == before


def test_remove_tree_never_leaves_the_folder_it_was_given(tmp_path: Path) -> None:
    from eval_kit.errors import BadInput
    from eval_kit.safe_paths import remove_tree

    victim = _victim(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "link").symlink_to(victim)
    for path, inside in ((victim, tmp_path / "out"), (tmp_path / "out" / ".." / "victim", tmp_path / "out"),
                         (tmp_path / "out" / "link", tmp_path / "out"), (tmp_path / "out", tmp_path / "out")):
        with pytest.raises(BadInput):
            remove_tree(path, inside)
    assert (victim / "demo_annotations" / "precious.txt").read_text() == "keep\n"
