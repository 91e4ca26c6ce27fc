"""HazardForge end to end through the CLI: synthetic scenes -> plan -> editor -> quality check -> run directory.

Also: a run killed with SIGKILL and resumed equals an uninterrupted run byte for byte, bad sources fail
only their own jobs with a recorded reason, and the same path runs with a tiny FluxFill pipeline and a
tiny Qwen3-VL checker built offline from configs.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.cli_helpers import invoke

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    """3 synthetic scenes at 640x360 and their plan."""
    root = tmp_path_factory.mktemp("forge")
    code, out = invoke("forge", "synthetic", root / "scenes", "-n", "3", "--width", "640", "--height", "360")
    assert code == 0, out
    code, out = invoke("forge", "plan", root / "scenes" / "sources.jsonl", "--out", root / "plan.jsonl", "--json")
    assert code == 0, out
    return root, root / "plan.jsonl"


def snapshot(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest()
            for sub in ("jobs", "images") for p in sorted((run / sub).rglob("*")) if p.is_file()}


def test_compositor_heuristic_run_and_status(planned, tmp_path):
    _root, plan = planned
    run = tmp_path / "run"
    code, out = invoke("forge", "run", plan, "--out", run, "--limit", "40", "--no-progress")
    assert code == 0, out
    assert "40 jobs: 0 already done, 40 run now" in out
    records = [json.loads(p.read_text()) for p in (run / "jobs").rglob("*.json")]
    assert len(records) == 40 and {r["status"] for r in records} <= {"accepted", "rejected", "failed"}
    accepted = [r for r in records if r["status"] == "accepted"]
    assert len(accepted) >= 20, [r.get("reason") for r in records if r["status"] != "accepted"]
    plan_lines = {json.loads(line)["job_id"]: json.loads(line) for line in plan.read_text().splitlines()}
    for record in accepted:
        job = plan_lines[record["job_id"]]
        image = Image.open(run / "images" / record["image_sha256"][:2] / f"{record['image_sha256']}.png")
        assert image.size == (640, 360)
        source = Image.open(plan.parent / job["image"]).convert("RGB")
        changed = np.any(np.asarray(image) != np.asarray(source), axis=2)
        assert changed.any()
        # every edit's attempts carry the seed and the checker's verdict; no wall times in records
        for edit in record["edits"]:
            assert edit["accepted"] and edit["attempts"][-1]["verdict"]["accepted"]
            assert "edit_s" not in edit["attempts"][0]
        assert record["editor"]["editor"] == "compositor" and record["checker"]["checker"] == "heuristic"
    # re-running does nothing new
    code, out = invoke("forge", "run", plan, "--out", run, "--limit", "40", "--no-progress")
    assert code == 0 and "40 already done, 0 run now" in out
    code, out = invoke("forge", "status", run, "--json")
    status = json.loads(out)
    assert status["finished"] == 40 and status["statuses"].get("accepted", 0) == len(accepted)
    code, out = invoke("forge", "status", run)
    assert code == 0 and "static" in out and "acceptance" in out


def test_sigkill_and_resume_equals_uninterrupted(planned, tmp_path):
    _root, plan = planned
    exe = [sys.executable, "-m", "builder.cli", "forge", "run", str(plan), "--limit", "30", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([*exe, "--out", str(tmp_path / "whole")], check=True, env=env, capture_output=True, timeout=300)
    killed = tmp_path / "killed"
    proc = subprocess.Popen([*exe, "--out", str(killed)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if (killed / "jobs").exists() and len(list((killed / "jobs").rglob("*.json"))) >= 6:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(list((killed / "jobs").rglob("*.json")))
    assert 0 < done < 30, f"expected a part-way kill, got {done} finished jobs"
    subprocess.run([*exe, "--out", str(killed)], check=True, env=env, capture_output=True, timeout=300)
    assert snapshot(killed) == snapshot(tmp_path / "whole")
    assert len(list((killed / "jobs").rglob("*.json"))) == 30


def test_bad_sources_fail_their_jobs_and_the_run_goes_on(planned, tmp_path):
    _root, plan = planned
    lines = [json.loads(line) for line in plan.read_text().splitlines()][:8]
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    for line in lines:  # copy sources next to the new plan so they can be damaged
        target = scenes / Path(line["image"]).name
        if not target.exists():
            target.write_bytes((plan.parent / line["image"]).read_bytes())
        line["image"] = f"scenes/{target.name}"
    lines[0] = {**lines[0], "image": "scenes/missing.png"}
    lines[1] = {**lines[1], "source_sha256": "0" * 64}
    corrupt = scenes / "corrupt.png"
    corrupt.write_bytes(b"\x89PNG not really")
    lines[2] = {**lines[2], "image": "scenes/corrupt.png",
                "source_sha256": hashlib.sha256(corrupt.read_bytes()).hexdigest()}
    bad_plan = tmp_path / "plan.jsonl"
    bad_plan.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out = invoke("forge", "run", bad_plan, "--out", tmp_path / "run", "--no-progress")
    assert code == 0, out
    assert "source image missing" in out and "checksum mismatch" in out and "corrupt source image" in out
    status = json.loads(invoke("forge", "status", tmp_path / "run", "--json")[1])
    assert status["statuses"]["failed"] == 3 and status["finished"] == 8

    code, out = invoke("forge", "run", bad_plan, "--out", tmp_path / "run2", "--editor", "flux-fill",
                       "--editor-model", tmp_path / "no-such-model", "--device", "cpu", "--no-progress", "--limit", "4")
    assert code == 0, out
    status = json.loads(invoke("forge", "status", tmp_path / "run2", "--json")[1])
    assert status["statuses"] == {"failed": 4}
    assert any("cannot load FluxFillPipeline" in f["reason"] for f in status["failures"])


def test_bad_plan_and_mixed_runs_exit_2(planned, tmp_path):
    _root, plan = planned
    code, out = invoke("forge", "run", tmp_path / "nope.jsonl", "--out", tmp_path / "r")
    assert code == 2 and "plan file not found" in out
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"job_id": "x"}\n')
    code, out = invoke("forge", "run", broken, "--out", tmp_path / "r")
    assert code == 2 and "line 1" in out
    invoke("forge", "run", plan, "--out", tmp_path / "r", "--limit", "1", "--no-progress")
    code, out = invoke("forge", "run", plan, "--out", tmp_path / "r", "--limit", "1", "--max-retries", "5")
    assert code == 2 and "different" in out


def test_tiny_flux_fill_with_tiny_vlm_checker(planned, tmp_path):
    """The diffusers + VLM path end to end on tiny random-weight models of the real classes, loaded from folders."""
    from eval_kit.testing.tiny_diffusion import tiny_flux_fill
    from eval_kit.testing.tiny_vlm import tiny_qwen3_vl

    _root, plan = planned
    tiny_flux_fill().save_pretrained(tmp_path / "flux")
    model, processor = tiny_qwen3_vl()
    model.save_pretrained(tmp_path / "vlm")
    processor.save_pretrained(tmp_path / "vlm")
    code, out = invoke("forge", "run", plan, "--out", tmp_path / "run", "--limit", "2", "--no-progress",
                       "--editor", "flux-fill", "--editor-model", tmp_path / "flux", "--device", "cpu",
                       "--dtype", "float32", "--steps", "2", "--max-area", "4096", "--checker", "vlm",
                       "--checker-model", tmp_path / "vlm", "--checker-device", "cpu", "--max-retries", "1")
    assert code == 0, out
    records = [json.loads(p.read_text()) for p in (tmp_path / "run" / "jobs").rglob("*.json")]
    assert len(records) == 2
    for record in records:
        assert record["status"] in {"accepted", "rejected"}, record.get("reason")
        assert record["editor"]["pipeline"] == "FluxFillPipeline" and record["checker"]["checker"] == "vlm"
        attempts = record["edits"][0]["attempts"]
        assert 1 <= len(attempts) <= 2
        assert set(attempts[0]["verdict"]["raw"]) == {"completeness_answer", "direction_answer"}


def test_export_then_publish_reads_back_with_datasets(planned, tmp_path):
    """forge run -> forge export -> publish -> load_dataset: same ids, answers and image bytes as the run."""
    import datasets

    _root, plan = planned
    run = tmp_path / "run"
    assert invoke("forge", "run", plan, "--out", run, "--limit", "12", "--no-progress")[0] == 0
    code, out = invoke("forge", "export", run, "--out", tmp_path / "records", "--scope", "all")
    assert code == 0, out
    records = [json.loads(line) for line in (tmp_path / "records" / "records.jsonl").read_text().splitlines()]
    accepted = [json.loads(p.read_text()) for p in (run / "jobs").rglob("*.json")]
    accepted = [r for r in accepted if r["status"] == "accepted"]
    assert sum(r["scenario"] != "no_edit" for r in records) == len(accepted)
    assert sum(r["scenario"] == "no_edit" for r in records) == 3  # one per source scene
    publish = ("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input", tmp_path / "records",
               "--out", tmp_path / "repo", "--date", "2026-11-30")
    # the images lie in the run and the sources, outside the records' folder: build.json recorded both roots
    code, out = invoke(*publish)
    assert code == 0, out
    ds = datasets.load_dataset(str(tmp_path / "repo"), "demo", split="test")
    ds = ds.cast_column("image", datasets.Image(decode=False))
    by_id = {r["id"]: r for r in records}
    assert sorted(ds["id"]) == sorted(by_id)
    for row in ds:
        record = by_id[row["id"]]
        assert not Path(record["image_path"]).is_absolute()  # relative to the export folder
        given = (tmp_path / "records" / record["image_path"]).read_bytes()
        if row["scenario"] == ds.features["scenario"].str2int("no_edit"):
            assert row["image"]["bytes"] == given  # the source file, as it is
        else:  # the run's lossless PNG, stored as JPEG q95: same size, pixels within JPEG error
            import io

            stored = Image.open(io.BytesIO(row["image"]["bytes"]))
            assert stored.format == "JPEG" and given.startswith(b"\x89PNG")
            a = np.asarray(stored.convert("RGB"), dtype=np.int16)
            b = np.asarray(Image.open(io.BytesIO(given)).convert("RGB"), dtype=np.int16)
            assert a.shape == b.shape and np.abs(a - b).mean() < 3
        assert ds.features["answer"].int2str(row["answer"]) == record["answer"]
        assert row["source_benchmark"] == "synthetic"
        if row["scenario"] != ds.features["scenario"].str2int("no_edit"):
            assert row["object_box"] == record["object_box"] and len(row["object_box"]) >= 1
    # synthetic rows are demo data: any other config refuses them
    code, out = invoke("publish", "movsafebench", "--config", "default", "--version", "0.1.0", "--input",
                       tmp_path / "records", "--out", tmp_path / "repo2")
    assert code == 2 and "belong in a demo config" in out


def test_ray_engine_matches_local_run(planned, tmp_path):
    """`--engine ray` on a local Ray instance (CPU): actors build their own editor and checker, same files."""
    _root, plan = planned
    common = ("forge", "run", plan, "--limit", "8", "--no-progress")
    assert invoke(*common, "--out", tmp_path / "local")[0] == 0
    code, out = invoke(*common, "--out", tmp_path / "ray", "--engine", "ray", "--workers", "2")
    assert code == 0, out
    assert snapshot(tmp_path / "ray") == snapshot(tmp_path / "local")
    assert len(list((tmp_path / "ray" / "jobs").rglob("*.json"))) == 8
