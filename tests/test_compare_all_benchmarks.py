"""`hazardkit compare` for every benchmark (issue 24, item 6): run folders or prediction files, McNemar on
per-sample correctness, Wilcoxon on per-sample scores (BD-HazardVLM: tests/test_bd_cli.py), Holm across the
pairs; `--config` must exist; runs of another dataset revision or config are refused."""

import json
import shutil
from pathlib import Path

import pytest

from eval_kit.testing.synthetic_datasets import write_parquet_folder
from tests.cli_helpers import hk, invoke

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def movsafe(tmp_path_factory):
    """A 40-row MovSafeBench dataset folder (config demo) and three runs: two run folders and a file."""
    tmp = tmp_path_factory.mktemp("compare")
    data = write_parquet_folder(tmp / "movsafebench", 40, seed=4, config="demo")
    runs = {}
    for answer in ("straight", "left"):
        out = tmp / f"run-{answer}"
        hk("eval", "movsafebench", "-m", f"fixed:{answer}", "-b", "baseline", "--data", data, "--config", "demo",
           "--out", out, "--no-progress")
        runs[answer] = out
    right = tmp / "right.jsonl"
    right.write_text("".join(json.dumps({"id": json.loads(line)["id"], "prediction": "right"}) + "\n"
                             for line in (runs["left"] / "predictions.jsonl").read_text().splitlines()))
    runs["right"] = right
    return {"data": data, "runs": runs, "tmp": tmp}


def test_movsafebench_run_folders_and_files_with_mcnemar_and_holm(movsafe):
    from statsmodels.stats.multitest import multipletests

    r = movsafe["runs"]
    out = json.loads(hk("compare", "movsafebench", r["straight"], f"L={r['left']}", r["right"], "--references",
                        movsafe["data"], "--config", "demo", "--json"))
    assert list(out["runs"]) == ["run-straight", "L", "right"]
    assert out["config"] == "demo" and out["dataset_revision"].startswith("sha256:")
    [(task, pairs)] = out["tasks"].items()
    assert task == "accuracy" and len(pairs) == 3 and {p["test"] for p in pairs} == {"mcnemar_exact"}
    _, holm, _, _ = multipletests([p["p_value"] for p in pairs], method="holm")
    assert [p["p_holm"] for p in pairs] == pytest.approx(list(holm))
    # each pair's scores are the runs' own accuracies (`score run` agrees)
    straight = json.loads((r["straight"] / "scores.json").read_text()) if (r["straight"] / "scores.json").exists() \
        else json.loads(hk("score", "run", r["straight"], "--json"))
    assert pairs[0]["score_a"] == pytest.approx(straight["accuracy"])
    assert out["num_samples"] == len(straight["per_sample"]["id"])  # every edited image, paired
    text = hk("compare", "movsafebench", r["straight"], r["left"], "--references", movsafe["data"])
    assert "Holm" in text and "mcnemar_exact" in text


def test_the_config_asked_for_must_exist(movsafe):
    r = movsafe["runs"]
    code, output = invoke("compare", "movsafebench", r["straight"], r["left"], "--references", movsafe["data"],
                          "--config", "nope")
    assert code == 2 and output.count("\n") == 1
    assert "the references have no config 'nope' (have: demo)" in output


def test_runs_of_another_dataset_version_are_refused(movsafe):
    r, tmp = movsafe["runs"], movsafe["tmp"]
    other = tmp / "run-old-version"
    shutil.copytree(r["left"], other, dirs_exist_ok=True)
    meta = json.loads((other / "metadata.json").read_text())
    (other / "metadata.json").write_text(json.dumps({**meta, "dataset_revision": "v0.1.0"}))
    run = json.loads((other / "run.json").read_text())
    run.get("identity", {}).pop("dataset_revision", None)
    (other / "run.json").write_text(json.dumps(run))
    code, output = invoke("compare", "movsafebench", r["straight"], other, "--references", movsafe["data"])
    assert code == 2 and output.count("\n") == 1
    assert "was made on dataset revision 'v0.1.0'" in output and "only results of one dataset version" in output
    # a newer release of the data (more rows, another revision) is not compared with runs of the old one
    newer = write_parquet_folder(tmp / "movsafebench-v2", 60, seed=5, config="demo")
    code, output = invoke("compare", "movsafebench", r["straight"], r["left"], "--references", newer)
    assert code == 2 and "only results of one dataset version are compared" in output


def test_incomplete_runs_are_refused_unless_allowed(movsafe):
    r, tmp = movsafe["runs"], movsafe["tmp"]
    half = tmp / "half.jsonl"
    half.write_text("\n".join(r["right"].read_text().splitlines()[:20]) + "\n")
    code, output = invoke("compare", "movsafebench", r["right"], half, "--references", movsafe["data"])
    assert code == 2 and "run 'half': 20 of 40 reference ids have no prediction" in output
    out = json.loads(hk("compare", "movsafebench", r["straight"], half, "--references", movsafe["data"], "--json",
                        "--allow-missing"))
    assert out["num_samples"] < 40


def test_saferelbench_run_folders_without_references(tmp_path):
    samples = ROOT / "manifests" / "saferelbench" / "demo.jsonl"
    runs = []
    for plan in ("reference", "unmitigated"):
        out = tmp_path / plan
        hk("eval", "saferelbench", "-m", f"fixed:{plan}", "-b", "baseline", "--data", samples, "--out", out,
           "--no-progress")
        runs.append(out)
    out = json.loads(hk("compare", "saferelbench", *runs, "--json"))  # the references the run folders name
    assert set(out["tasks"]) == {"SSR", "success"}
    [ssr] = out["tasks"]["SSR"]
    assert ssr["test"] == "mcnemar_exact" and ssr["score_a"] > ssr["score_b"]
    assert ssr["detail"]["only_a_correct"] > 0


@pytest.mark.parametrize("name", ["movsafebench", "bd-hazardvlm", "saferelbench"])
def test_every_benchmark_has_compare_with_a_config_option(name):
    code, output = invoke("compare", name, "--help")
    assert code == 0 and "--config" in output and "McNemar" in output and "Wilcoxon" in output
