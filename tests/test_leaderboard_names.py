"""A model's display name is never a local path: `eval --model-name`, its default for a local folder, the board's
reduction of paths in names (also in uploads and tables written by older versions), and the form's rule."""

import json
import zipfile
from pathlib import Path

import pytest

from eval_kit.display_names import default_display_name, display_name, looks_like_path, reduce_paths
from eval_kit.errors import BadInput
from eval_kit.leaderboard.results import add_results, read_table, write_table
from eval_kit.leaderboard.space.pipeline import Leaderboard
from eval_kit.testing.synthetic_datasets import write_jsonl
from tests.chat_stub import ChatStub
from tests.cli_helpers import hk, invoke
from tests.test_leaderboard_space import predictions, refs, settings  # noqa: F401  (refs: a fixture)


@pytest.mark.parametrize("name, reduced", [
    ("/tmp/ux3models/internvl3", "internvl3"),
    ("~/models/qwen-vl", "qwen-vl"),
    ("~alice/ckpt/step-100", "step-100"),
    ("C:\\Users\\bob\\models\\m1", "m1"),
    ("file:///home/carol/m2", "m2"),
    ("internvl3 (/home/dave/private-project/x)", "internvl3 (x)"),
])
def test_a_path_in_a_name_is_reduced_to_its_last_component(name, reduced):
    assert looks_like_path(name)
    assert reduce_paths(name) == reduced


@pytest.mark.parametrize("name", ["Qwen/Qwen2.5-VL-7B-Instruct", "https://example.org/m", "fixed:reference",
                                  "a / b", "gpt-4o-2024-08-06", "model v1.0 (4-bit)"])
def test_a_plain_name_is_kept(name):
    assert not looks_like_path(name) and reduce_paths(name) == name


def test_defaults_and_a_chosen_name(tmp_path):
    folder = tmp_path / "weights" / "internvl3"
    folder.mkdir(parents=True)
    name, note = default_display_name(str(folder))
    assert name == "internvl3" and "--model-name" in note and str(tmp_path) not in note
    assert default_display_name("OpenGVLab/InternVL3-8B") == ("OpenGVLab/InternVL3-8B", None)
    assert display_name(str(folder), "my-vlm") == ("my-vlm", None)
    with pytest.raises(BadInput, match=r"--model-name.*holds a local path"):
        display_name(str(folder), str(folder))


def test_eval_from_a_local_folder_shows_the_folder_name_and_records_the_path_apart(tmp_path):
    """A vLLM server serves a model by its path unless told otherwise: the served name is a local path."""
    data = write_jsonl(tmp_path / "data", 6, seed=2)
    served = tmp_path / "home" / "alice" / "private-project" / "internvl3"
    served.mkdir(parents=True)
    out = tmp_path / "run"
    with ChatStub(lambda body: "Answer: B") as server:
        code, output = invoke("eval", "movsafebench", "-m", served, "-b", "openai", "--data", data, "--out", out,
                              "--base-url", server.url, "--api-key-env", "HK_NO_KEY", "--no-progress")
    assert code == 0, output
    assert "note: the model is shown as 'internvl3'" in output
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["model"] == "internvl3" and meta["model_source"] == str(served)
    assert json.loads((out / "run.json").read_text())["identity"]["model"] == str(served)  # what loads, apart
    scored = hk("score", "run", out)
    assert json.loads((out / "scores.json").read_text())["model"] == "internvl3"
    assert "private-project" not in scored
    table = tmp_path / "results.parquet"
    hk("leaderboard", "add", out / "scores.json", "--table", table)
    assert [r["model"] for r in read_table(table)] == ["internvl3"]
    page = tmp_path / "site"
    hk("leaderboard", "render", "--table", table, "--out", page)
    for file in page.rglob("*.*"):
        if file.suffix in (".md", ".html"):
            assert "private-project" not in file.read_text(), file
    # --model-name wins, and a resumed run with another name is the same run (nothing asked again)
    with ChatStub(lambda body: "Answer: B") as server:
        hk("eval", "movsafebench", "-m", served, "--model-name", "InternVL3-8B-ours", "-b", "openai", "--data", data,
           "--out", out, "--base-url", server.url, "--api-key-env", "HK_NO_KEY", "--no-progress")
        assert not server.requests
    assert json.loads((out / "metadata.json").read_text())["model"] == "InternVL3-8B-ours"


def test_the_board_reduces_paths_from_older_uploads_and_tables(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs))
    run = tmp_path / "run"
    hk("eval", "movsafebench", "-m", "majority", "-b", "baseline", "--data", refs, "--out", run, "--no-progress",
       "--text-only")
    meta = json.loads((run / "metadata.json").read_text())
    meta["model"] = "/home/bob/secret-project/internvl3"  # what `eval` wrote before --model-name existed

    def archive(name: str) -> Path:
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as zf:
            zf.write(run / "predictions.jsonl", "run/predictions.jsonl")
            zf.writestr("run/metadata.json", json.dumps(meta))
        return path

    outcome = lb.submit(archive("old.zip"), "old.zip", "movsafebench", "", user="u1")
    assert outcome.status == "published", outcome.lines
    assert "shown as 'internvl3' (the folder's name; set Model name to choose)" in outcome.text
    outcome = lb.submit(archive("old2.zip"), "old2.zip", "movsafebench", "InternVL3 (ours)", user="u2")
    assert outcome.status == "published", outcome.lines
    assert "shown as 'InternVL3 (ours)' (the form's Model name)" in outcome.text
    typed = lb.submit(predictions(refs, tmp_path / "p.jsonl"), "p.jsonl", "movsafebench", "~/models/x", user="u3")
    assert typed.status == "refused" and "holds a local path" in typed.text
    models = sorted(r["model"] for r in read_table(lb.settings.table))
    assert models == ["InternVL3 (ours)", "internvl3"]
    assert "secret-project" not in json.dumps(_all_cells(lb.settings.table))
    # a table written by an older version, with a path as a model name: read (and rewritten) without it
    old = tmp_path / "old.parquet"
    row = {**read_table(lb.settings.table)[0], "model": "/Users/eve/ckpts/run-7", "run": "r-old"}
    write_table(old, [row])
    assert read_table(old)[0]["model"] == "run-7"
    add_results(old, [])
    assert "/Users/eve" not in json.dumps(_all_cells(old))


def _all_cells(table: Path) -> list:
    import pyarrow.parquet as pq

    return pq.read_table(table).to_pylist()
