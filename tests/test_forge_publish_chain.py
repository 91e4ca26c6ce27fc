"""The documented chain with no glue: sources scan -> forge plan -> run -> export -> publish -> load_dataset.

The images lie in a folder of their own (`photos/`), the index in another, the manifest in a third, the plan
in a fourth: `forge plan` needs no `--root` (the manifest recorded it), and `publish --input records` needs no
`--image-root` (build.json recorded where the run's and the sources' images are). The source is named by the
maintainer (`roadpics`, not one of the paper's) and reaches the rows and the card. The build uses the CPU
compositor, so the card must say its objects are synthetic sprites, and publishing it under a config other
than demo needs `--allow-compositor`, which the card records.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from tests.cli_helpers import invoke

TARGETS = {"static": {"cone": 1, "human": 1}, "motion": {"dog": 1}, "intrusion": {"deer": 1},
           "distance": {"cone": 1}}


def _ok(*args: object) -> str:
    code, out = invoke(*args)
    assert code == 0, out
    return out


@pytest.fixture(scope="module")
def chain(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("chain")
    _ok("forge", "synthetic", root / "photos", "-n", "3", "--width", "480", "--height", "270")
    scanned = [json.loads(x) for x in (root / "photos" / "sources.jsonl").read_text().splitlines()]
    (root / "photos" / "sources.jsonl").unlink()  # the photos folder holds only images
    (root / "index").mkdir()
    (root / "index" / "images.jsonl").write_text("".join(json.dumps(
        {"id": s["id"], "path": s["path"], "gt_action": s["gt_action"], "agent": s["agent"]}) + "\n"
        for s in scanned))
    (root / "targets.json").write_text(json.dumps(TARGETS))
    manifest = root / "manifests" / "sources.jsonl"
    _ok("sources", "scan", "folder", "--index", root / "index" / "images.jsonl", "--root", root / "photos",
        "--dataset", "roadpics", "--no-hood", "--out", manifest)
    _ok("forge", "plan", manifest, "--out", root / "plans" / "plan.jsonl", "--targets", root / "targets.json",
        "--json")
    _ok("forge", "run", root / "plans" / "plan.jsonl", "--out", root / "run", "--no-progress")
    _ok("forge", "export", root / "run", "--out", root / "records", "--scope", "all")
    return root


def _publish(chain: Path, out: Path, *extra: object) -> tuple[int, str]:
    return invoke("publish", "movsafebench", "--config", "default", "--version", "1.0.0", "--date", "2026-12-01",
                  "--input", chain / "records", "--out", out, "--allow-source", "roadpics",
                  "--source-licence", "roadpics=CC0 1.0 (test scenes)", *extra)


@pytest.fixture(scope="module")
def published(chain: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("repo") / "movsafebench"
    code, text = _publish(chain, out, "--allow-compositor")
    assert code == 0, text
    return out


def test_manifest_records_its_root_and_plan_needs_no_root(chain: Path) -> None:
    rows = [json.loads(x) for x in (chain / "manifests" / "sources.jsonl").read_text().splitlines()]
    assert {r["root"] for r in rows} == {str((chain / "photos").resolve())}
    assert {r["dataset"] for r in rows} == {"roadpics"}
    plan = [json.loads(x) for x in (chain / "plans" / "plan.jsonl").read_text().splitlines()]
    assert plan and {j["source_benchmark"] for j in plan} == {"roadpics"}
    assert "all 3 source images present and identical" in _ok("sources", "verify", chain / "manifests" /
                                                               "sources.jsonl")


def test_missing_image_names_the_root_flag(chain: Path, tmp_path: Path) -> None:
    moved = tmp_path / "manifest.jsonl"
    rows = [json.loads(x) for x in (chain / "manifests" / "sources.jsonl").read_text().splitlines()]
    moved.write_text("".join(json.dumps({**r, "root": str(tmp_path / "gone")}) + "\n" for r in rows))
    code, out = invoke("forge", "plan", moved, "--out", tmp_path / "plan.jsonl")
    assert code == 2 and "image not found" in out and "--root roadpics=DIR" in out, out
    code, out = invoke("forge", "plan", moved, "--out", tmp_path / "plan.jsonl", "--root",
                       f"roadpics={chain / 'photos'}", "--json")
    assert code == 0, out


def _planned_sources(chain: Path) -> set[str]:
    """The source images the plan edits: the seeded subsample ranks jobs by a hash of the image bytes, so which
    of the three scenes get a job is the plan's to say, not this test's to guess."""
    plan = [json.loads(x) for x in (chain / "plans" / "plan.jsonl").read_text().splitlines()]
    return {j["source_id"] for j in plan}


def test_export_publishes_as_it_is_and_loads(chain: Path, published: Path, tmp_path: Path) -> None:
    records = [json.loads(x) for x in (chain / "records" / "records.jsonl").read_text().splitlines()]
    edited = [r for r in records if r["scenario"] != "no_edit"]
    # one no_edit row for each planned source image, named after it
    assert edited and sorted(r["id"] for r in records if r["scenario"] == "no_edit") == sorted(
        f"msb-roadpics-{s}-no_edit" for s in _planned_sources(chain))
    ds = datasets.load_dataset(str(published), "default", split="test", cache_dir=str(tmp_path / "cache"))
    assert sorted(ds["id"]) == sorted(r["id"] for r in records)
    assert set(ds["source_benchmark"]) == {"roadpics"}
    assert set(ds["checker"]) == {"heuristic", None}
    assert {e for e in ds["editor"] if e} == {"hazardkit/compositor"}
    raw = ds.cast_column("image", datasets.Image(decode=False))
    scenario = ds.features["scenario"].names
    for row in raw:
        head = row["image"]["bytes"][:4]
        if scenario[row["scenario"]] == "no_edit":
            assert head.startswith(b"\x89PNG")  # the source file's bytes, unchanged
        else:
            assert head.startswith(b"\xff\xd8\xff")  # edited: stored as JPEG (the run wrote PNG)


def test_compositor_config_without_the_flag_exits_2(chain: Path, tmp_path: Path) -> None:
    code, out = _publish(chain, tmp_path / "repo")
    assert code == 2, out
    assert "--allow-compositor" in out and "synthetic sprites" in out and "Traceback" not in out
    assert not (tmp_path / "repo" / "data" / "default").exists()


def test_card_states_the_build(chain: Path, published: Path) -> None:
    card = DatasetCard.load(published / "README.md").text
    records = [json.loads(x) for x in (chain / "records" / "records.jsonl").read_text().splitlines()]
    edited = sum(r["scenario"] != "no_edit" for r in records)
    # sources: the build's name and counts, the licence as given
    line = next(x for x in card.splitlines() if x.startswith("| `roadpics` |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    images = str(len(_planned_sources(chain)))
    assert cells[1:5] == [images, str(len(records)), str(edited), images], line
    assert "CC0 1.0 (test scenes)" in line
    # the sprite statement, the recorded flag, the editor and checker per row
    assert "synthetic sprites, for testing the pipeline" in card
    assert f"{edited} of its\n> {edited} edited images were made by the CPU compositor" in card
    assert "with `--allow-compositor`" in card
    assert "| `hazardkit/compositor` | compositor-" in card and "`heuristic`" in card
    assert "not\nthe paper's VLM quality check" in card
    # acceptance from the run: the totals match the run's records
    jobs = [json.loads(p.read_text()) for p in (chain / "run" / "jobs").rglob("*.json")]
    accepted = sum(j["status"] == "accepted" for j in jobs)
    assert f"{accepted} of {len(jobs)} jobs accepted" in card.replace("\n", " ")
    # what it must no longer claim
    for claim in ("200 DriveBench", "200 SA-Bench", "a VLM quality check filtered", "400 source"):
        assert claim not in card
    manifest = json.loads((published / "release-manifest.json").read_text())
    facts = manifest["configs"]["default"]["build_facts"]
    assert facts["confirmed"] == {"compositor": {"flag": "--allow-compositor", "rows": edited}}
    assert facts["storage"]["groups"]["edited"]["formats"] == {"JPEG": edited}


def test_stale_build_summary_and_moved_records_are_refused(chain: Path, tmp_path: Path) -> None:
    copy = chain / "records_copy"  # beside the original, so its relative image paths still resolve
    shutil.copytree(chain / "records", copy)
    with (copy / "records.jsonl").open("a") as handle:
        handle.write("\n")
    code, out = invoke("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input", copy,
                       "--out", tmp_path / "repo")
    assert code == 2 and "describes another records.jsonl" in out, out
    (copy / "build.json").unlink()  # without the recorded roots the run's images are outside the input
    code, out = invoke("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input", copy,
                       "--out", tmp_path / "repo")
    assert code == 2 and "is outside the input folder" in out and "--image-root" in out, out
    code, out = invoke("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input", copy,
                       "--out", tmp_path / "repo", "--image-root", chain)
    shutil.rmtree(copy)
    assert code == 0, out


def test_score_and_leaderboard_show_the_editor(chain: Path, published: Path, tmp_path: Path) -> None:
    records = [json.loads(x) for x in (chain / "records" / "records.jsonl").read_text().splitlines()]
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": r["id"], "prediction": "straight"}) + "\n" for r in records))
    out = _ok("score", "movsafebench", "--references", published, "--config", "default", "--predictions", preds,
              "--json", "--bootstrap", "100")
    result = json.loads(out)
    assert result["dataset_editors"] == ["hazardkit/compositor"]
    assert set(result["by_source"]) == {"roadpics"}  # the maintainer's source in the per-source breakdown
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps({**result, "model": "always-straight"}))
    _ok("leaderboard", "add", scores, "--table", tmp_path / "t.parquet", "--config", "default")
    _ok("leaderboard", "render", "--table", tmp_path / "t.parquet", "--out", tmp_path / "site")
    md = (tmp_path / "site" / "leaderboard.md").read_text()
    assert "| Revision | Editor |" in md and "hazardkit/compositor" in md
