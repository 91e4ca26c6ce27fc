"""The three `evaluate` modules take columns exactly as `load_dataset` returns them and agree with
`hazardkit score` on the same rows (one comparison per benchmark), plus the minimal call."""

import json
from pathlib import Path

import pytest

from eval_kit import registry
from eval_kit.testing.synthetic_datasets import write_parquet_folder
from tests.cli_helpers import hk

evaluate = pytest.importorskip("evaluate")
datasets = pytest.importorskip("datasets")

CLI_ONLY = {"missing", "references", "predictions", "references_incomplete", "samples", "plans", "traces"}


def load_parquet(file, tmp_path):
    return datasets.load_dataset("parquet", data_files=str(file), split="train", cache_dir=str(tmp_path / "hf"))


def metric(name):
    return evaluate.load(str(registry.get(name).metric_path()))


def _same(module_result, cli_result):
    shared = set(module_result) - CLI_ONLY
    assert shared <= set(cli_result), shared - set(cli_result)
    assert {k: module_result[k] for k in shared} == {k: cli_result[k] for k in shared}


MOV_STYLES = ["A", "straight", "The answer is C.", "I am not sure.", '{"answer": "B"}', "go left",
              "<think>hmm</think>\\boxed{A}", "right"]


def test_movsafebench_module_equals_cli_on_load_dataset_columns(tmp_path):
    folder = write_parquet_folder(tmp_path / "ds", 60, seed=2)
    file = next((folder / "data" / "demo").glob("*.parquet"))
    ds = load_parquet(file, tmp_path)
    assert isinstance(ds["answer"][0], int)  # ClassLabel columns come back as integers
    responses = [MOV_STYLES[i % len(MOV_STYLES)] for i in range(len(ds))]
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": i, "response": r}) + "\n" for i, r in zip(ds["id"], responses,
                                                                                        strict=True)))
    cli = json.loads(hk("score", "movsafebench", "--references", file, "--predictions", preds, "--json",
                        "--bootstrap", 200))
    got = metric("movsafebench").compute(
        predictions=responses, references=ds["answer"], scenarios=ds["scenario"], categories=ds["category"],
        source_benchmarks=ds["source_benchmark"], source_ids=ds["source_id"], n_bootstrap=200)
    _same(got, cli)
    assert got["unparsed"] == cli["unparsed"] > 0 and 0 < got["accuracy"] < 1


def test_movsafebench_minimal_call_letters_names_ints_and_raw_text():
    m = metric("movsafebench")
    out = m.compute(predictions=["A", "The answer is C.", "no idea", 1], references=[0, "left", "right", "B"])
    assert out["accuracy"] == 0.5 and out["unparsed"] == 1 and out["num_samples"] == 4
    assert out["by_scenario"] == {} and out["by_category"] == {} and out["by_source"] == {}
    with_scenarios = m.compute(predictions=["A", "C"], references=["left", "left"], scenarios=["no_edit", 1])
    assert with_scenarios["by_scenario"] == {"no_edit": 1.0, "static": 0.0} and with_scenarios["accuracy"] == 0.0
    with pytest.raises(ValueError, match="not a label index"):
        m.compute(predictions=["A"], references=[7])


def test_movsafebench_add_batch_with_ints_and_missing_columns():
    m = metric("movsafebench")
    for preds, refs in ((["A", "go right"], [0, 0]), (["B", "?"], [1, 2])):
        m.add_batch(predictions=preds, references=refs)
    out = m.compute(n_bootstrap=50)
    assert out["accuracy"] == 0.5 and out["unparsed"] == 1 and out["by_scenario"] == {}


def _bd_rows():
    from tests.bd_fixtures import paper_references

    return paper_references(seed=1)[:40]


def test_bd_hazardvlm_module_equals_cli_on_load_dataset_rows(tmp_path):
    from eval_kit.bd_hazardvlm import spec
    from tests.bd_fixtures import perfect_prediction

    rows = _bd_rows()
    file = tmp_path / "annotations.parquet"
    datasets.Dataset.from_list(rows, features=spec.features(with_image=False)).to_parquet(str(file))
    ds = load_parquet(file, tmp_path)
    assert isinstance(ds[0]["primary_hazard_category"], int) and isinstance(ds[0]["defensive_actions"][0], int)
    responses = []
    for i, r in enumerate(rows):
        text = json.dumps(perfect_prediction(r))
        responses.append([text, "```json\n" + text + "\n```", text[:-1] + ",}", "no idea", text[:120]][i % 5])
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": r["id"], "response": t}) + "\n"
                             for r, t in zip(rows, responses, strict=True)))
    cli = json.loads(hk("score", "bd-hazardvlm", "--references", file, "--predictions", preds, "--json"))
    got = metric("bd_hazardvlm").compute(predictions=responses, references=ds.to_list())
    _same(got, cli)
    assert got["schema"]["valid_rate"] == pytest.approx(16 / 40)  # the repaired and cut-off ones are invalid
    assert got["category"]["accuracy"] > got["schema"]["valid_rate"]  # ... but their fields are scored


def test_saferelbench_module_equals_cli_on_load_dataset_rows(tmp_path):
    from eval_kit.saferelbench import spec
    from eval_kit.saferelbench.samples import sample_to_row

    demo = Path(__file__).resolve().parents[1] / "manifests" / "saferelbench" / "demo.jsonl"
    samples = [json.loads(line) for line in demo.read_text(encoding="utf-8").splitlines() if line.strip()]
    file = tmp_path / "samples.parquet"
    rows = [sample_to_row(s) for s in samples]
    datasets.Dataset.from_list(rows, features=spec.features()).to_parquet(str(file))
    ds = load_parquet(file, tmp_path)
    assert isinstance(ds[0]["split"], int)
    plans = [json.dumps(s["reference_plan"]) if i % 3 else "I would not do anything." for i, s in enumerate(samples)]
    plan_file = tmp_path / "plans.jsonl"
    plan_file.write_text("".join(json.dumps({"id": s["id"], "response": p}) + "\n"
                                 for s, p in zip(samples, plans, strict=True)))
    cli = json.loads(hk("score", "saferelbench", "--samples", file, "--plans", plan_file, "--json"))
    got = metric("saferelbench").compute(predictions=plans, references=ds.to_list())
    _same(got, cli["plans"])
    assert got["unparsed"] == cli["plans"]["unparsed"] > 0
