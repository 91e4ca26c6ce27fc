"""BD-HazardVLM: a run on a local reconstruction validates against the published annotations config it was
rebuilt from (the revision is a hash of the annotation records, not of the Parquet bytes with images)."""

import json

from eval_kit.bd_hazardvlm.task import BDHazardVLMTask
from tests.cli_helpers import hk, invoke


def test_a_run_on_the_reconstruction_validates_against_the_annotations_config(tmp_path):
    bd = tmp_path / "bd"
    hk("reconstruct", "bd-hazardvlm", "--demo", "--out", bd)
    run = tmp_path / "run"
    hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", bd, "--out", run, "--no-progress")
    published = tmp_path / "published"
    hk("publish", "bd-hazardvlm", "--config", "demo_annotations", "--version", "0.1.0", "--date", "2026-11-30",
       "--out", published)
    # the two folders hold different bytes (images vs annotations only) but the same records
    assert not (published / "data" / "demo_annotations" / "image").exists()
    assert (BDHazardVLMTask(data=bd, config="demo").dataset_revision
            == BDHazardVLMTask(data=published, config="demo_annotations").dataset_revision)
    out = hk("validate", "bd-hazardvlm", "-r", published, "--config", "demo_annotations",
             "-p", run / "predictions.jsonl", "--metadata", run / "metadata.json")
    assert "metadata matches" in out
    # and the scored run's leaderboard row carries that config's revision
    hk("score", "run", run)
    hk("leaderboard", "add", run / "scores.json", "--table", tmp_path / "t.parquet")
    from eval_kit.leaderboard.results import read_table

    row = read_table(tmp_path / "t.parquet")[0]
    assert row["config"] == "demo" and row["synthetic"]
    assert row["dataset_revision"] == BDHazardVLMTask(data=published, config="demo_annotations").dataset_revision


def test_changed_annotations_do_not_validate(tmp_path):
    bd = tmp_path / "bd"
    hk("reconstruct", "bd-hazardvlm", "--demo", "--out", bd)
    run = tmp_path / "run"
    hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", bd, "--out", run, "--no-progress",
       "--text-only")
    records = BDHazardVLMTask(data=bd, config="demo").records()
    edited = tmp_path / "edited.jsonl"
    lines = [dict(r) for r in records.values()]
    lines[0]["evidence"] = lines[0]["evidence"] + " (edited)"
    edited.write_text("".join(json.dumps(r) + "\n" for r in lines))
    code, out = invoke("validate", "bd-hazardvlm", "-r", edited, "-p", run / "predictions.jsonl",
                       "--metadata", run / "metadata.json")
    assert code == 2 and "does not match the references" in out
