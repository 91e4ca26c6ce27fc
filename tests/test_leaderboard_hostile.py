"""A hostile submitter cannot break the board or the operator's host (issue 24, item 7), without a server:
mathtext names in plots, control and bidi characters wherever a name is taken, corrupt zips, the crash
window of a published row, recovery at start, validate's line bound, the hf:// form, lmms-eval error names.
The server cases (forwarded header, stray uploads, orphaned worker) are in test_leaderboard_hostile_server.py.
"""

import io
import json
import zipfile
import zlib
from pathlib import Path

import pytest

from eval_kit.leaderboard.results import read_table
from eval_kit.leaderboard.space.pipeline import Leaderboard
from tests.cli_helpers import hk, invoke
from tests.test_leaderboard_space import predictions, refs, settings  # noqa: F401  (refs: fixture)

HOSTILE_CHARACTERS = ["\u009b", "\u202e", "\u2028", "\u2029", "\u200f", "\u2066", "\x1b", "\x7f", "\ufeff"]


def test_a_mathtext_model_name_renders_as_text_on_the_page_and_in_the_app(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs))
    for name, k in ((r"$\foo$", 2), ("$x^$", 3), (r"plain \$ $\frac{$", 5)):
        outcome = lb.submit(predictions(refs, tmp_path / f"{k}.jsonl", right_every=k), f"{k}.jsonl", "movsafebench",
                            name, user=f"u{k}")
        assert outcome.status == "published", outcome.lines
    out = tmp_path / "site"
    code, output = invoke("leaderboard", "render", "--table", lb.settings.table, "--out", out)
    assert code == 0, output
    plots = sorted((out / "plots").glob("*.png"))
    assert plots and all(p.stat().st_size > 1000 for p in plots)
    assert r"$\foo$" in (out / "index.html").read_text()  # as text: html-escaped, never parsed
    # the app's tab: the same sections, its plots drawn as inline SVG, with the names as escaped text
    from eval_kit.leaderboard.space.views import Views

    views = Views(lb)
    assert views.sections("movsafebench")
    board = views.board_html("movsafebench")
    assert "<svg" in board and r"$\foo$" in board


@pytest.mark.parametrize("char", HOSTILE_CHARACTERS, ids=[f"U+{ord(c):04X}" for c in HOSTILE_CHARACTERS])
def test_control_and_bidi_characters_are_refused_in_every_name(tmp_path, refs, char):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs))
    preds = predictions(refs, tmp_path / "p.jsonl")
    for field in ("model", "backend", "link"):
        args = {"model": "m", "backend": "vllm", "link": "", field: f"evil{char}name"}
        if field == "link":
            args["link"] = f"http://e{char}vil.example/x"
        outcome = lb.submit(preds, "p.jsonl", "movsafebench", args["model"], args["link"], args["backend"],
                            user="u1")
        assert outcome.status == "refused" and len(outcome.lines) == 1, outcome.lines
        position = 9 if field == "link" else 5
        assert f"'{field}' contains control characters (U+{ord(char):04X} at character {position})" in outcome.text
        assert char not in outcome.text
    assert lb.store.records() == []
    # `leaderboard add --model`: one line, exit 2
    ok = lb.submit(preds, "p.jsonl", "movsafebench", "fine", user="u2")
    result = json.loads(hk("score", "movsafebench", "-r", refs, "-p", preds, "--json", "--bootstrap", "100"))
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps(result))
    code, output = invoke("leaderboard", "add", scores, "--table", tmp_path / "t.parquet", "--model", f"x{char}",
                          "--config", "default", "--dataset-revision", "r1")
    assert code == 2 and output.count("\n") == 1 and "control characters" in output and char not in output
    assert ok.status == "published"
    # and a run name given to `compare`
    code, output = invoke("compare", "movsafebench", f"a{char}={preds}", f"b={preds}", "--references", refs)
    assert code == 2 and output.count("\n") == 1 and "'run name' contains control characters" in output


def test_validate_refuses_control_characters_in_the_metadata(tmp_path, refs):  # noqa: F811
    preds = predictions(refs, tmp_path / "p.jsonl")
    meta = tmp_path / "metadata.json"
    meta.write_text(json.dumps({"benchmark": "movsafebench", "benchmark_version": "1.0", "model": "m\u202egpj.exe",
                                "backend": "vllm", "dataset_revision": "x"}))
    code, output = invoke("validate", "movsafebench", "-r", refs, "-p", preds, "--metadata", meta)
    assert code == 2 and "field 'model': 'model' contains control characters (U+202E at character 2)" in output
    assert "\u202e" not in output


def test_the_submissions_listing_never_prints_raw_control_characters(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs))
    outcome = lb.submit(predictions(refs, tmp_path / "p.jsonl"), "p.jsonl", "movsafebench", "m", user="u1")
    # a record written before names were checked (or by hand) holds a C1 CSI and a bidi override
    lb.store.update(outcome.submission_id, model="m\u009b31m\u202e", outcome="ok\u2028forged line")
    output = hk("leaderboard", "submissions", "--space-dir", lb.settings.data_dir)
    assert output.count("\n") == 1
    assert not any(c in output for c in "\u009b\u202e\u2028")
    assert "\\x9b31m\\u202e" in output and "ok\\u2028forged line" in output


def _corrupt_zip(tmp_path: Path, refs_path: Path) -> Path:
    """A run-folder zip whose predictions.jsonl member has a broken deflate stream (the headers are intact)."""
    data = predictions(refs_path, tmp_path / "ok.jsonl").read_bytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("run/predictions.jsonl", data)
    raw = bytearray(buffer.getvalue())
    start = 30 + len("run/predictions.jsonl")  # the local header, then the compressed stream
    raw[start:start + 8] = b"\xff" * 8
    path = tmp_path / "corrupt.zip"
    path.write_bytes(bytes(raw))
    with zipfile.ZipFile(path) as zf, pytest.raises((zlib.error, zipfile.BadZipFile)):
        zf.read("run/predictions.jsonl")  # it really is broken inside
    return path


def test_a_zip_with_a_corrupt_deflate_member_is_one_line_and_costs_no_quota(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs, daily_limit=1))
    archive = _corrupt_zip(tmp_path, refs)
    for _ in range(3):
        outcome = lb.submit(archive, "corrupt.zip", "movsafebench", "m", user="u1")
        assert outcome.status == "refused" and len(outcome.lines) == 1, outcome.lines
        assert outcome.lines[0].startswith("error: corrupt.zip: cannot read predictions.jsonl from the archive (")
        assert "zip the run folder again" in outcome.lines[0]
    assert lb.store.records() == []
    # the one submission of the day is still there
    good = lb.submit(predictions(refs, tmp_path / "g.jsonl"), "g.jsonl", "movsafebench", "m", user="u1")
    assert good.status == "published", good.lines


def test_reject_takes_down_a_row_published_in_the_instant_before_a_crash(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs))
    outcome = lb.submit(predictions(refs, tmp_path / "p.jsonl"), "p.jsonl", "movsafebench", "m", user="u1")
    assert [r["run"] for r in read_table(lb.settings.table)] == [outcome.submission_id]
    # the crash window: the row reached results.parquet, the record was never updated
    lb.store.update(outcome.submission_id, status="processing", outcome="")
    output = hk("leaderboard", "reject", outcome.submission_id, "--space-dir", lb.settings.data_dir,
                "--reason", "spam")
    assert output == f"{outcome.submission_id}: rejected\n"
    assert read_table(lb.settings.table) == []
    assert lb.store.get(outcome.submission_id)["status"] == "rejected"


def test_at_start_the_app_recovers_submissions_a_crash_left_processing(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs, daily_limit=10))
    listed = lb.submit(predictions(refs, tmp_path / "a.jsonl"), "a.jsonl", "movsafebench", "a", user="u1")
    scored = lb.submit(predictions(refs, tmp_path / "b.jsonl", 3), "b.jsonl", "movsafebench", "b", user="u2")
    never = lb.submit(predictions(refs, tmp_path / "c.jsonl", 5), "c.jsonl", "movsafebench", "c", user="u3")
    # three crash windows: after the row was listed; after it was scored, before listing; before scoring
    from eval_kit.leaderboard.results import add_results

    add_results(lb.settings.table, [], remove=lambda r: r["run"] in (scored.submission_id, never.submission_id))
    (lb.store.folder(never.submission_id) / "row.json").unlink()
    for outcome in (listed, scored, never):
        lb.store.update(outcome.submission_id, status="processing")
    assert "pending submission" in lb.store.limit_problem("u3", 10)  # blocked, today for 15 minutes
    restarted = Leaderboard(lb.settings)
    changed = {r["id"]: r["status"] for r in restarted.recover()}
    assert changed == {listed.submission_id: "published", scored.submission_id: "published",
                       never.submission_id: "failed"}
    assert sorted(r["run"] for r in read_table(lb.settings.table)) == sorted([listed.submission_id,
                                                                             scored.submission_id])
    assert lb.store.limit_problem("u3", 10) is None  # the user may submit again
    assert "rescore" in lb.store.get(never.submission_id)["outcome"]
    assert restarted.recover() == []  # nothing left to do
    # rescoring the failed one lists it
    [again] = restarted.rescore([never.submission_id])
    assert again.status == "published"


def test_recovery_under_moderation_leaves_a_scored_row_pending(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs, moderation=True))
    outcome = lb.submit(predictions(refs, tmp_path / "a.jsonl"), "a.jsonl", "movsafebench", "a", user="u1")
    lb.store.update(outcome.submission_id, status="processing")
    [record] = Leaderboard(lb.settings).recover()
    assert record["status"] == "pending" and read_table(lb.settings.table) == []


def test_validate_has_the_16_mib_line_bound_of_score(tmp_path, refs):  # noqa: F811
    good = predictions(refs, tmp_path / "good.jsonl").read_text().splitlines()
    path = tmp_path / "long.jsonl"
    huge = json.dumps({"id": "ms-0001", "response": "x" * (17 * 2**20)})
    path.write_text("\n".join([good[0], huge, *good[2:], '{"id": "ms-0002", "prediction": "up"}']) + "\n")
    code_score, out_score = invoke("score", "movsafebench", "-r", refs, "-p", path)
    assert code_score == 2 and "line 2" in out_score and "longer than 16 MiB" in out_score
    code, output = invoke("validate", "movsafebench", "-r", refs, "-p", path)
    assert code == 2
    assert f"{path}, line 2: line longer than 16 MiB" in output
    # reading went on past the long line: line 61's bad label and the duplicate id are reported too
    assert "line 61" in output and "duplicate id 'ms-0002'" in output
    assert len(output) < 5000  # nothing of the 17 MiB line is echoed


def test_validate_reads_line_by_line(tmp_path, refs, monkeypatch):  # noqa: F811
    """The file is never read whole: every read asks for at most one line's bound."""
    from eval_kit import strictjson
    from eval_kit.leaderboard import validate

    sizes = []
    real = strictjson.open_regular

    class Spy:
        def __init__(self, handle):
            self.handle = handle

        def readline(self, size=-1):
            sizes.append(size)
            return self.handle.readline(size)

        def read(self, size=-1):
            sizes.append(size)
            return self.handle.read(size)

        def __getattr__(self, name):
            return getattr(self.handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

    monkeypatch.setattr(strictjson, "open_regular", lambda path: Spy(real(path)))
    objects, problems = validate.scan_jsonl(predictions(refs, tmp_path / "p.jsonl"))
    assert len(objects) == 60 and problems == []
    assert sizes and all(0 < s <= strictjson.MAX_LINE_BYTES + 1 for s in sizes)


OLD = "a" * 40


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """hazardkit/movsafebench@v0.1.0 in an offline huggingface_hub cache (the layout huggingface_hub writes)."""
    import shutil

    from eval_kit.testing.synthetic_datasets import write_parquet_folder

    cache = tmp_path / "hf-cache"
    src = write_parquet_folder(tmp_path / "src", 20, seed=1)
    (src / "README.md").write_text("---\nconfigs:\n- config_name: demo\n  data_files:\n  - split: test\n"
                                   "    path: data/demo/*.parquet\n---\n# MovSafeBench\n")
    repo = cache / "datasets--hazardkit--movsafebench"
    shutil.copytree(src, repo / "snapshots" / OLD)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "v0.1.0").write_text(OLD)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return repo / "snapshots" / OLD


def test_the_documented_hf_datasets_form_works_everywhere(tmp_path, hub_cache):
    import pyarrow.parquet as pq

    ids = pq.read_table(next((hub_cache / "data" / "demo").glob("*.parquet")), columns=["id"]).column("id")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": i, "prediction": "straight"}) + "\n" for i in ids.to_pylist()))
    source = "hf://datasets/hazardkit/movsafebench@v0.1.0"
    result = json.loads(hk("score", "movsafebench", "--references", source, "--config", "demo", "--predictions",
                           preds, "--json", "--bootstrap", "100"))
    assert result["num_samples"] == 20
    assert hk("validate", "movsafebench", "-r", source, "--config", "demo", "-p", preds).startswith("ok: 20 ")
    out = tmp_path / "run"
    hk("eval", "movsafebench", "-m", "fixed:straight", "-b", "baseline", "--data", source, "--config", "demo",
       "--out", out, "--no-progress")
    assert json.loads((out / "metadata.json").read_text())["dataset_revision"] == "v0.1.0"
    # the app's HAZARDKIT_REFERENCES form: the same offline fetch
    from eval_kit.leaderboard.space.settings import parse_references

    [ref] = parse_references(f"movsafebench={source}#demo").values()
    assert ref.local_path() == hub_cache
    # and an unknown repo in that form is a Hub error, not "file not found" for a folded hf:/ path
    code, output = invoke("validate", "movsafebench", "-r", "hf://datasets/hazardkit/nothing", "-p", preds)
    assert code == 2 and "hazardkit/nothing" in output and "hf:/datasets" not in output


def test_score_from_lmms_eval_errors_name_the_users_log(tmp_path, refs):  # noqa: F811
    ids = [json.loads(line)["id"] for line in refs.read_text().splitlines()]
    log = tmp_path / "samples_movsafebench.jsonl"
    lines = [{"doc_id": n, "ms_accuracy": {"id": i}, "resps": [["B"]]} for n, i in enumerate(ids)]
    lines.insert(3, {"doc_id": 99, "ms_accuracy": {"id": ids[0]}, "resps": [["A"]]})  # a duplicate on line 4
    log.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, output = invoke("score", "movsafebench", "-r", refs, "--from-lmms-eval", log)
    assert code == 2, output
    assert output.startswith(f"error: {log}, line 4") and "duplicate" in output
    assert "hazardkit-lmms-" not in output and "predictions-from-lmms-eval" not in output


def test_the_upload_sweep_removes_only_old_files_it_may_remove(tmp_path):
    import os

    from eval_kit.leaderboard.space.guard import discard_upload, sweep

    uploads = tmp_path / "uploads"
    old, new, plot = uploads / "a" / "old.jsonl", uploads / "b" / "new.jsonl", uploads / "c" / "plot.png"
    for path in (old, new, plot):
        path.parent.mkdir(parents=True)
        path.write_text("x")
    for path in (old, plot):
        os.utime(path, (1000, 1000))
    assert sweep(uploads, 600, keep=lambda: {str(plot)}) == 1
    assert not old.exists() and not old.parent.exists() and new.exists() and plot.exists()
    outside = tmp_path / "mine.jsonl"
    outside.write_text("keep me")
    discard_upload(outside, uploads)  # never a path outside the upload folder
    discard_upload(uploads / ".." / "mine.jsonl", uploads)
    assert outside.exists()
    discard_upload(new, uploads)
    assert not new.exists() and not new.parent.exists()
