"""`hazardkit export lmms-eval` and `score --from-lmms-eval`, without lmms-eval installed: the exported hooks are
driven the way lmms-eval 0.7.3 drives them (rows from `datasets`, process_results per doc, the samples log
written with the keys it keeps), and the scores must equal `hazardkit score` on the same answers.
The run with lmms-eval itself is `make lmms-eval-check` (benchmarks/lmms_eval_check.py)."""

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

from eval_kit.lmms_export import predictions_from_samples
from eval_kit.testing.synthetic_datasets import write_parquet_folder
from tests.cli_helpers import hk, invoke

datasets = pytest.importorskip("datasets")


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def _task(folder: Path):
    config = yaml.load(next(folder.glob("*.yaml")).read_text(), Loader=_Loader)
    spec = importlib.util.spec_from_file_location(f"utils_{folder.name}", folder / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)

    def function(value):
        kind, ref = value
        assert kind == "function" and ref.startswith("utils.")
        return getattr(utils, ref.split(".", 1)[1])

    return config, function


def _fake_lmms_eval(folder: Path, docs, responses, out: Path):
    """What lmms-eval does with the task: prompt, parse, aggregate, and log samples (doc dropped)."""
    config, function = _task(folder)
    kwargs = config["lmms_eval_specific_kwargs"]["default"]
    per_metric: dict[str, list] = {}
    with out.open("w") as log:
        for doc_id, (doc, response) in enumerate(zip(docs, responses, strict=True)):
            assert isinstance(function(config["doc_to_text"])(doc, kwargs), str)
            function(config["doc_to_visual"])(doc)
            metrics = function(config["process_results"])(doc, [response])
            for name, item in metrics.items():
                per_metric.setdefault(name, []).append(item)
                assert config["cluster_key"] in item and ("score" in item or "no_edit_score" in item)
            log.write(json.dumps({"doc_id": doc_id, "target": str(function(config["doc_to_target"])(doc)),
                                  "filtered_resps": [response], "resps": [[response]], **metrics}) + "\n")
    aggregations = {m["metric"]: function(m["aggregation"]) for m in config["metric_list"]}
    assert set(aggregations) == set(per_metric)
    return {name: aggregations[name](items) for name, items in per_metric.items()}


def _load(file, tmp_path):
    return datasets.load_dataset("parquet", data_files=str(file), split="train", cache_dir=str(tmp_path / "hf"))


def test_export_writes_yaml_and_utils_for_hub_and_parquet(tmp_path):
    folder = write_parquet_folder(tmp_path / "ds", 10)
    out = hk("export", "lmms-eval", "--out", tmp_path / "tasks", "-b", "movsafebench", "-b", "saferelbench",
             "--data", f"movsafebench={folder}", "--data", "saferelbench=hazardkit/saferelbench@v0.1.0")
    assert "--include_path" in out
    mov = (tmp_path / "tasks" / "hazardkit_movsafebench" / "hazardkit_movsafebench.yaml").read_text()
    assert "dataset_path: parquet" in mov and str((folder / "data" / "demo").resolve()) in mov
    assert "cluster_key: cluster" in mov
    srb = yaml.load((tmp_path / "tasks" / "hazardkit_saferelbench" / "hazardkit_saferelbench.yaml").read_text(),
                    Loader=_Loader)
    assert srb["dataset_path"] == "hazardkit/saferelbench" and srb["dataset_name"] == "demo"
    assert srb["dataset_kwargs"] == {"revision": "v0.1.0"} and srb["task"] == "hazardkit_saferelbench"
    utils = (tmp_path / "tasks" / "hazardkit_movsafebench" / "utils.py").read_text()
    assert "from eval_kit.movsafebench.lmms_eval import" in utils


def test_bd_hazardvlm_refuses_a_hub_source(tmp_path, monkeypatch):
    # from a folder with no local bd_hazardvlm/ (a checkout after `make demo` has one, which export then uses)
    monkeypatch.chdir(tmp_path)
    code, out = invoke("export", "lmms-eval", "--out", tmp_path / "t", "-b", "bd-hazardvlm")
    assert code == 2 and "never published" in out


MOV_RESPONSES = ["A", "The answer is C.", "no idea", "go straight", "B"]


def test_movsafebench_task_equals_hazardkit_score(tmp_path):
    folder = write_parquet_folder(tmp_path / "ds", 40, seed=4)
    hk("export", "lmms-eval", "--out", tmp_path / "tasks", "-b", "movsafebench", "--data", f"movsafebench={folder}")
    file = next((folder / "data" / "demo").glob("*.parquet"))
    docs = list(_load(file, tmp_path))
    responses = [MOV_RESPONSES[i % 5] for i in range(len(docs))]
    log = tmp_path / "samples.jsonl"
    results = _fake_lmms_eval(tmp_path / "tasks" / "hazardkit_movsafebench", docs, responses, log)
    scored = json.loads(hk("score", "movsafebench", "--references", folder, "--config", "demo", "--from-lmms-eval",
                           log, "--json", "--bootstrap", 100))
    assert results["movsafebench_accuracy"] == pytest.approx(scored["accuracy"])
    assert scored["unparsed"] == responses.count("no idea") and scored["predictions"] == str(log)
    assert [p["id"] for p in predictions_from_samples(log)] == [d["id"] for d in docs]


def test_bd_hazardvlm_task_equals_hazardkit_score(tmp_path):
    from eval_kit.bd_hazardvlm import spec
    from tests.bd_fixtures import paper_references, perfect_prediction

    rows = paper_references(seed=2)[:30]
    file = tmp_path / "demo.parquet"
    datasets.Dataset.from_list(rows, features=spec.features(with_image=False)).to_parquet(str(file))
    hk("export", "lmms-eval", "--out", tmp_path / "tasks", "-b", "bd-hazardvlm", "--data", f"bd-hazardvlm={file}")
    docs = list(_load(file, tmp_path))
    responses = [[json.dumps(perfect_prediction(r)), "no idea", '{"severity": "high",}'][i % 3]
                 for i, r in enumerate(rows)]
    log = tmp_path / "samples.jsonl"
    results = _fake_lmms_eval(tmp_path / "tasks" / "hazardkit_bd_hazardvlm", docs, responses, log)
    scored = json.loads(hk("score", "bd-hazardvlm", "--references", file, "--from-lmms-eval", log, "--json"))
    assert results["bd_category_accuracy"] == pytest.approx(scored["category"]["accuracy"]) == pytest.approx(10 / 30)
    assert results["bd_category_macro_f1"] == pytest.approx(scored["category"]["macro_f1"])
    assert results["bd_schema_valid_rate"] == pytest.approx(scored["schema"]["valid_rate"])


def test_saferelbench_task_equals_hazardkit_score(tmp_path):
    from eval_kit.saferelbench import spec
    from eval_kit.saferelbench.samples import sample_to_row

    demo = Path(__file__).resolve().parents[1] / "manifests" / "saferelbench" / "demo.jsonl"
    samples = [json.loads(x) for x in demo.read_text().splitlines() if x.strip()]
    file = tmp_path / "srb.parquet"
    datasets.Dataset.from_list([sample_to_row(s) for s in samples], features=spec.features()).to_parquet(str(file))
    hk("export", "lmms-eval", "--out", tmp_path / "tasks", "-b", "saferelbench", "--data", f"saferelbench={file}")
    docs = list(_load(file, tmp_path))
    responses = [json.dumps(s["reference_plan"]) if i % 2 else "nothing" for i, s in enumerate(samples)]
    log = tmp_path / "samples.jsonl"
    results = _fake_lmms_eval(tmp_path / "tasks" / "hazardkit_saferelbench", docs, responses, log)
    scored = json.loads(hk("score", "saferelbench", "--samples", file, "--from-lmms-eval", log, "--json"))["plans"]
    assert results["saferelbench_ssr"] == pytest.approx(scored["SSR"]) and results["saferelbench_sr"] == scored["SR"]
    assert 0 < scored["SR"] < 1


def test_foreign_samples_log_is_bad_input(tmp_path):
    log = tmp_path / "s.jsonl"
    log.write_text(json.dumps({"doc_id": 0, "filtered_resps": ["A"], "exact_match": 1.0}) + "\n")
    code, out = invoke("score", "movsafebench", "--references", log, "--from-lmms-eval", log)
    assert code == 2 and "no sample id" in out
    code, out = invoke("score", "movsafebench", "--references", log)
    assert code == 2 and "--from-lmms-eval" in out


def test_plain_export_uses_hub_ids_and_local_bd_images(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out = invoke("export", "lmms-eval", "--out", "tasks")
    assert code == 0, out
    assert sorted(p.name for p in Path("tasks").iterdir()) == ["hazardkit_movsafebench", "hazardkit_saferelbench"]
    assert "skipped bd-hazardvlm" in out and "never published" in out
    assert "dataset_path: hazardkit/movsafebench\ndataset_name: demo" in Path(
        "tasks/hazardkit_movsafebench/hazardkit_movsafebench.yaml").read_text()
    rebuilt = Path("bd_hazardvlm/reconstructed")
    rebuilt.mkdir(parents=True)
    (rebuilt / "test-00000-of-00001.parquet").write_bytes(b"")  # only its name is exported
    code, out = invoke("export", "lmms-eval", "--out", "tasks")
    assert code == 0 and "skipped" not in out, out
    bd = Path("tasks/hazardkit_bd_hazardvlm/hazardkit_bd_hazardvlm.yaml").read_text()
    assert str(rebuilt.resolve() / "test-00000-of-00001.parquet") in bd
