"""`--data` / `--references` / `--samples` take Hub ids, resolved offline from a pre-populated huggingface_hub
cache (built here in the layout huggingface_hub writes: refs/<name> -> commit, snapshots/<commit>/...);
benchmark names in either spelling are local folders and never reach the network."""

import json
import shutil
from pathlib import Path

import pytest

from eval_kit import registry
from eval_kit.hub_data import parse_hub_id
from eval_kit.testing.synthetic_datasets import write_parquet_folder
from tests.cli_helpers import invoke

OLD, NEW = "a" * 40, "b" * 40


def _snapshot(cache: Path, repo_id: str, commit: str, source: Path, refs: tuple[str, ...]) -> Path:
    repo = cache / f"datasets--{repo_id.replace('/', '--')}"
    snap = repo / "snapshots" / commit
    shutil.copytree(source, snap)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    for ref in refs:
        (repo / "refs" / ref).write_text(commit)
    return snap


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """hazardkit/movsafebench in the cache: v0.1.0 (20 rows) and main = v0.2.0 (40 rows); offline."""
    cache = tmp_path / "hf-cache"
    for commit, n, refs in ((OLD, 20, ("v0.1.0",)), (NEW, 40, ("main", "v0.2.0"))):
        src = write_parquet_folder(tmp_path / f"src-{n}", n, seed=1)
        (src / "README.md").write_text("---\nconfigs:\n- config_name: demo\n  data_files:\n  - split: test\n"
                                       "    path: data/demo/*.parquet\n---\n# MovSafeBench\n")
        _snapshot(cache, "hazardkit/movsafebench", commit, src, refs)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


@pytest.fixture
def no_network(monkeypatch):
    """Any Hub request fails the test."""
    import huggingface_hub

    def refuse(*args, **kwargs):
        raise AssertionError(f"network request for {args} {kwargs}")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", refuse)


def _preds(tmp_path, ids):
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps({"id": i, "prediction": "B"}) + "\n" for i in ids))
    return path


def _ids(folder):
    import pyarrow.parquet as pq

    return pq.read_table(next((folder / "data" / "demo").glob("*.parquet")), columns=["id"]).column("id").to_pylist()


def test_registry_hub_ids():
    ids = {b.name: b.hub_id for b in registry.benchmarks() if b.name in ("movsafebench", "bd_hazardvlm",
                                                                        "saferelbench")}
    assert ids == {"movsafebench": "hazardkit/movsafebench", "bd_hazardvlm": "hazardkit/bd-hazardvlm",
                   "saferelbench": "hazardkit/saferelbench"}
    assert parse_hub_id("hazardkit/movsafebench@v0.1.0") == ("hazardkit/movsafebench", "v0.1.0")
    assert parse_hub_id("hf://datasets/org/x") == ("org/x", None)
    assert parse_hub_id("runs/preds.jsonl") is None and parse_hub_id("movsafebench") is None


def test_score_with_hub_id_offline_main_and_tag(tmp_path, hub_cache):
    snap_new = hub_cache / "datasets--hazardkit--movsafebench" / "snapshots" / NEW
    snap_old = hub_cache / "datasets--hazardkit--movsafebench" / "snapshots" / OLD
    preds = _preds(tmp_path, _ids(snap_new))
    local = invoke("score", "movsafebench", "--references", snap_new, "--config", "demo", "--predictions", preds,
                   "--json", "--allow-missing")
    hub = invoke("score", "movsafebench", "--references", "hazardkit/movsafebench", "--config", "demo",
                 "--predictions", preds, "--json", "--allow-missing")
    assert local[0] == hub[0] == 0, hub[1]
    a, b = json.loads(local[1]), json.loads(hub[1])
    assert a["accuracy"] == b["accuracy"] and b["num_samples"] == 40
    assert b["references"] == str(snap_new)
    code, out = invoke("score", "movsafebench", "--references", "hazardkit/movsafebench@v0.1.0", "--config", "demo",
                       "--predictions", _preds(tmp_path, _ids(snap_old)), "--json")
    assert code == 0, out
    assert json.loads(out)["num_samples"] == 20  # the tag's snapshot, not main's


def test_make_task_records_tag_or_commit(hub_cache):
    task = registry.make_task("movsafebench", data="hazardkit/movsafebench@v0.1.0", config="demo")
    assert task.dataset_revision == "v0.1.0" and len(list(task.samples(text_only=True))) == 20
    task = registry.make_task("movsafebench", data="hazardkit/movsafebench", config="demo")
    assert task.dataset_revision == NEW
    task = registry.make_task("movsafebench", data="hazardkit/movsafebench", config="demo",
                              dataset_revision="v0.1.0")
    assert len(list(task.samples(text_only=True))) == 20


def test_eval_cli_with_hub_id(tmp_path, hub_cache):
    code, out = invoke("eval", "movsafebench", "-m", "majority", "-b", "baseline", "--data",
                       "hazardkit/movsafebench@v0.1.0", "--config", "demo", "--out", tmp_path / "run", "--no-progress")
    assert code == 0, out
    assert "20 samples" in out
    assert json.loads((tmp_path / "run" / "metadata.json").read_text())["dataset_revision"] == "v0.1.0"


def test_validate_with_hub_id(tmp_path, hub_cache):
    snap = hub_cache / "datasets--hazardkit--movsafebench" / "snapshots" / NEW
    code, out = invoke("validate", "movsafebench", "--references", "hazardkit/movsafebench", "--config", "demo",
                       "--predictions", _preds(tmp_path, _ids(snap)))
    assert code == 0, out


def test_uncached_hub_id_offline_is_one_line_error(tmp_path, hub_cache):
    code, out = invoke("score", "bd-hazardvlm", "--references", "hazardkit/bd-hazardvlm", "--predictions",
                       _preds(tmp_path, ["x"]))
    assert code == 2
    assert "not in the local Hugging Face cache (offline mode)" in out and "Traceback" not in out
    code, out = invoke("score", "movsafebench", "--references", "hazardkit/movsafebench@v9", "--config", "demo",
                       "--predictions", _preds(tmp_path, ["x"]))
    assert code == 2 and "hazardkit/movsafebench@v9" in out


@pytest.mark.parametrize("name", ["bd-hazardvlm", "bd_hazardvlm"])
def test_benchmark_names_are_local_folders_never_the_network(tmp_path, monkeypatch, no_network, name):
    monkeypatch.chdir(tmp_path)
    code, out = invoke("score", "bd-hazardvlm", "--references", name, "--predictions", _preds(tmp_path, ["x"]))
    assert code == 2 and "never goes to the network" in out and "hazardkit/bd-hazardvlm" in out
    from eval_kit.registry import resolve_data

    (tmp_path / "bd_hazardvlm").mkdir()
    assert resolve_data(name) == (Path("bd_hazardvlm"), None)
    # under an existing folder, or with a file suffix: a local path (its reader reports it), never a Hub id
    assert resolve_data("bd_hazardvlm/missing") == (Path("bd_hazardvlm/missing"), None)
    assert resolve_data("runs/typo.jsonl") == (Path("runs/typo.jsonl"), None)
    code, out = invoke("score", "bd-hazardvlm", "--references", "runs/typo.jsonl", "--predictions",
                       _preds(tmp_path, ["x"]))
    assert code == 2 and "file not found" in out


def test_cli_spelling_folder_is_the_dataset_folder():
    """`load_dataset("bd-hazardvlm", ...)` from the checkout reads the local folder instead of the Hub."""
    root = Path(__file__).resolve().parents[1]
    assert (root / "bd-hazardvlm").is_symlink()
    assert (root / "bd-hazardvlm").resolve() == (root / "bd_hazardvlm").resolve()


@pytest.mark.parametrize("name", ["bd-hazardvlm", "bd_hazardvlm"])
def test_cli_and_python_spellings_of_names(name):
    code, out = invoke("score", name, "--help")
    assert code == 0 and "Hub id" in out, out
    for group in ("compare", "reconstruct"):
        code, out = invoke(group, name, "--help")
        assert code == 0 and "Usage" in out, out
    code, out = invoke("validate", name, "--references", "x", "--predictions", "y")
    assert code == 2 and "unknown benchmark" not in out
