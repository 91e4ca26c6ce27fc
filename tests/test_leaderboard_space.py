"""The leaderboard app's engine without a browser: limits, validation, scoring through the registry, the
submission store (sha256, time, outcome), moderation from the CLI, rescoring, bounded uploads, settings."""

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from eval_kit.errors import BadInput
from eval_kit.leaderboard.results import read_table
from eval_kit.leaderboard.space.pipeline import Leaderboard
from eval_kit.leaderboard.space.settings import Reference, SpaceSettings, parse_references
from eval_kit.testing.synthetic_datasets import rows
from tests.cli_helpers import hk, invoke

ANSWERS = ("left", "straight", "right")


@pytest.fixture(scope="module")
def refs(tmp_path_factory) -> Path:
    """60 MovSafeBench references with non-synthetic ids (ms-0000...), as JSON Lines."""
    folder = tmp_path_factory.mktemp("refs")
    path = folder / "references.jsonl"
    lines = []
    for i, r in enumerate(rows(60, seed=3)):
        lines.append({"id": f"ms-{i:04d}", "answer": r["answer"], "scenario": r["scenario"],
                      "category": r["category"], "source_benchmark": r["source_benchmark"],
                      "source_id": r["source_id"]})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def predictions(refs: Path, out: Path, right_every: int = 2) -> Path:
    lines = []
    for i, line in enumerate(refs.read_text().splitlines()):
        r = json.loads(line)
        answer = r["answer"] if i % right_every == 0 else ANSWERS[(ANSWERS.index(r["answer"]) + 1) % 3]
        lines.append({"id": r["id"], "prediction": answer})
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return out


def settings(tmp_path: Path, refs: Path, **options) -> SpaceSettings:
    base = {"data_dir": tmp_path / "space", "references": {"movsafebench": Reference("movsafebench", str(refs))},
            "n_bootstrap": 200}
    return SpaceSettings(**{**base, **options})


def test_a_valid_submission_is_stored_scored_and_listed(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs))
    preds = predictions(refs, tmp_path / "my preds.jsonl")
    outcome = lb.submit(preds, preds.name, "movsafebench", "my-model", "https://example.org/m", "vllm", user="u1")
    assert outcome.status == "published", outcome.lines
    assert outcome.lines[0].startswith("ok: 60 predictions for movsafebench (config default): Total accuracy")
    record = lb.store.get(outcome.submission_id)
    assert record["sha256"] == hashlib.sha256(preds.read_bytes()).hexdigest()
    assert record["status"] == "published" and record["received_at"] and record["user"] == "u1"
    assert lb.store.upload_path(record).read_bytes() == preds.read_bytes()  # kept for rescoring
    [row] = read_table(lb.settings.table)
    assert (row["model"], row["run"], row["backend"], row["link"]) == ("my-model", outcome.submission_id, "vllm",
                                                                      "https://example.org/m")
    assert row["config"] == "default" and row["dataset_revision"].startswith("sha256:") and not row["synthetic"]
    # the same scorer as the CLI: `hazardkit score movsafebench` gives the same accuracy
    cli = json.loads(hk("score", "movsafebench", "-r", refs, "-p", preds, "--json", "--bootstrap", "200"))
    assert row["headline"] == pytest.approx(cli["accuracy"])


def test_a_malformed_submission_gets_the_cli_lines_without_server_paths(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs))
    good = predictions(refs, tmp_path / "good.jsonl").read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([good[0], '{"id": "ms-0001", "prediction": ', *good[2:]]) + "\n")
    outcome = lb.submit(bad, "bad.jsonl", "movsafebench", "m", user="u1")
    assert outcome.status == "invalid"
    assert outcome.lines == ["error: bad.jsonl, line 2: malformed JSON (Expecting value at column 33) (each line "
                             "must be one complete JSON object)",
                             "error: bad.jsonl, field 'id': 1 of 60 reference ids have no prediction: 'ms-0001' "
                             "(predict every sample of the split)"]
    assert str(tmp_path) not in outcome.text
    assert lb.store.get(outcome.submission_id)["status"] == "invalid"
    assert read_table(lb.settings.table) == []
    # a million bad lines are not a million messages
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps({"id": f"x{i}", "prediction": "up"}) + "\n" for i in range(500)))
    outcome = lb.submit(many, "many.jsonl", "movsafebench", "m", user="u2")
    assert len(outcome.lines) == 21 and outcome.lines[-1].startswith("error: ... and ")


def test_size_and_row_limits(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs, max_upload_bytes=2000, max_rows=10))
    preds = predictions(refs, tmp_path / "p.jsonl")
    outcome = lb.submit(preds, "p.jsonl", "movsafebench", "m", user="u1")
    assert outcome.status == "refused"
    assert outcome.lines[0].startswith("error: p.jsonl: upload is 2.4 KB, over the 2.0 KB limit")
    assert lb.store.records() == []  # refused before anything is stored
    lb.settings.max_upload_bytes = 10**6
    outcome = lb.submit(preds, "p.jsonl", "movsafebench", "m", user="u1")
    assert outcome.status == "invalid" and outcome.lines == [
        "error: p.jsonl: 60 lines, over the limit of 10 (one line per sample of the benchmark)"]


def test_bad_fields_are_refused(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs))
    preds = predictions(refs, tmp_path / "p.jsonl")
    cases = [({"model": ""}, "no model"), ({"model": "a\nb"}, "control characters"),
             ({"model": "x" * 201}, "at most 200"), ({"link": "javascript:alert(1)"}, "http(s) URL"),
             ({"benchmark": "saferelbench"}, "takes no saferelbench submissions"),
             ({"benchmark": "../x"}, "unknown benchmark")]
    for change, message in cases:
        args = {"benchmark": "movsafebench", "model": "m", "link": "", **change}
        outcome = lb.submit(preds, "p.jsonl", args["benchmark"], args["model"], args["link"], user="u1")
        assert outcome.status == "refused" and message in outcome.text, (change, outcome.lines)
    outcome = lb.submit(None, None, "movsafebench", "m", user="u1")
    assert outcome.lines == ["error: no file uploaded (choose a predictions .jsonl or a run folder .zip)"]
    # markup in a model name is kept as text (the app shows it as text, the Markdown escapes it)
    outcome = lb.submit(preds, "p.jsonl", "movsafebench", "<img src=x onerror=alert(1)>", user="u1")
    assert outcome.status == "published" and read_table(lb.settings.table)[0]["model"] == "<img src=x onerror=alert(1)>"


def test_moderation_pending_limit_and_cli_approval(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs, moderation=True))
    preds = predictions(refs, tmp_path / "p.jsonl")
    first = lb.submit(preds, "p.jsonl", "movsafebench", "m1", user="u1")
    assert first.status == "pending" and "pending" in first.lines[-1]
    assert read_table(lb.settings.table) == []
    second = lb.submit(preds, "p.jsonl", "movsafebench", "m2", user="u1")
    assert second.status == "refused" and "already have a pending submission" in second.text
    other = lb.submit(preds, "p.jsonl", "movsafebench", "m3", user="u2")
    assert other.status == "pending"
    space = ["--space-dir", tmp_path / "space", "--references", f"movsafebench={refs}"]
    listed = hk("leaderboard", "submissions", *space, "--status", "pending")
    assert first.submission_id in listed and other.submission_id in listed
    assert "published" in hk("leaderboard", "approve", first.submission_id, *space)
    assert [r["model"] for r in read_table(lb.settings.table)] == ["m1"]
    assert "rejected" in hk("leaderboard", "reject", other.submission_id, *space, "--reason", "duplicate")
    assert lb.store.get(other.submission_id)["outcome"] == "rejected by the operator: duplicate"
    code, out = invoke("leaderboard", "approve", other.submission_id, *space)
    assert code == 2 and "is rejected, not pending" in out
    code, out = invoke("leaderboard", "approve", "../../etc", *space)
    assert code == 2 and out.count("\n") == 1 and "is not a submission id" in out
    # u1's submission is no longer pending: u1 may submit again
    assert lb.submit(preds, "p.jsonl", "movsafebench", "m4", user="u1").status == "pending"


def test_daily_limit(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs, daily_limit=2))
    preds = predictions(refs, tmp_path / "p.jsonl")
    assert [lb.submit(preds, "p.jsonl", "movsafebench", f"m{i}", user="u1").status for i in range(3)] == [
        "published", "published", "refused"]
    assert "daily limit reached (2 submissions in 24 hours)" in lb.submit(preds, "p.jsonl", "movsafebench", "m",
                                                                           user="u1").text
    assert lb.submit(preds, "p.jsonl", "movsafebench", "m", user="u2").status == "published"


def test_rescoring_from_the_stored_file(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs))
    preds = predictions(refs, tmp_path / "p.jsonl")
    outcome = lb.submit(preds, "p.jsonl", "movsafebench", "m", user="u1")
    preds.unlink()  # the submitter's copy is gone: the stored one is scored
    before = read_table(lb.settings.table)[0]
    out = hk("leaderboard", "rescore", "--space-dir", tmp_path / "space", "--references", f"movsafebench={refs}")
    assert f"{outcome.submission_id}: published: ok: 60 predictions" in out
    [after] = read_table(lb.settings.table)
    assert after["headline"] == before["headline"] and after["run"] == before["run"]
    record = lb.store.get(outcome.submission_id)
    assert record["rescored_at"] and record["history"][0]["headline"] == before["headline"]


def run_zip(tmp_path: Path, refs: Path, members: dict[str, bytes] | None = None) -> Path:
    run = tmp_path / "run"
    hk("eval", "movsafebench", "-m", "majority", "-b", "baseline", "--data", refs, "--out", run, "--no-progress",
       "--text-only")
    archive = tmp_path / "run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in run.iterdir():
            zf.write(file, f"run/{file.name}")
        for name, data in (members or {}).items():
            zf.writestr(name, data)
    return archive


def test_a_run_folder_zip_is_validated_with_its_metadata(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs))
    archive = run_zip(tmp_path, refs)
    outcome = lb.submit(archive, "run.zip", "movsafebench", "majority", user="u1")
    assert outcome.status == "published", outcome.lines
    # metadata of another dataset revision is caught
    meta = json.loads((tmp_path / "run" / "metadata.json").read_text())
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.write(tmp_path / "run" / "predictions.jsonl", "predictions.jsonl")
        zf.writestr("metadata.json", json.dumps({**meta, "dataset_revision": "sha256:0000000000000000"}))
    outcome = lb.submit(other, "other.zip", "movsafebench", "majority", user="u2")
    assert outcome.status == "invalid"
    assert "error: other.zip/metadata.json, field 'dataset_revision': dataset revision" in outcome.text


@pytest.mark.parametrize("name, data, message", [
    ("../evil.jsonl", b"x", "unsafe member name"),
    ("/abs/predictions.jsonl", b"x", "unsafe member name"),
])
def test_hostile_zips_are_refused(tmp_path, refs, name, data, message):
    lb = Leaderboard(settings(tmp_path, refs))
    archive = tmp_path / "h.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(name, data)
        zf.writestr("predictions.jsonl", b"{}\n")
    outcome = lb.submit(archive, "h.zip", "movsafebench", "m", user="u1")
    # refused before it is stored: a broken archive costs no quota
    assert outcome.status == "refused" and message in outcome.text, outcome.lines
    assert not (tmp_path / "evil.jsonl").exists() and lb.store.records() == []


def test_a_zip_bomb_is_refused_by_declared_size(tmp_path, refs):
    lb = Leaderboard(settings(tmp_path, refs, max_upload_bytes=100_000))
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("predictions.jsonl", b" " * 50_000_000)  # 50 MB of spaces: ~50 KB compressed
    assert archive.stat().st_size < 100_000
    outcome = lb.submit(archive, "bomb.zip", "movsafebench", "m", user="u1")
    assert outcome.status == "refused" and "unpacks to over the" in outcome.text
    assert not list((tmp_path / "space").rglob("unpacked/predictions.jsonl"))
    not_zip = tmp_path / "fake.zip"
    not_zip.write_bytes(b"hello")
    assert "not a zip archive" in lb.submit(not_zip, "fake.zip", "movsafebench", "m", user="u2").text
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    assert "not a readable zip archive" in lb.submit(garbage, "garbage.zip", "movsafebench", "m", user="u3").text


def test_settings_from_the_environment_and_references(tmp_path, refs, monkeypatch):
    env = {"HAZARDKIT_SPACE_DIR": str(tmp_path / "d"), "HAZARDKIT_MAX_UPLOAD_MB": "0.5", "HAZARDKIT_MAX_ROWS": "99",
           "HAZARDKIT_DAILY_LIMIT": "3", "HAZARDKIT_MODERATION": "1", "HF_TOKEN": "hf_secret",
           "HAZARDKIT_REFERENCES": f"movsafebench={refs}; bd-hazardvlm=hf://datasets/org/bd@v1.0.0#demo_annotations"}
    s = SpaceSettings.from_env(env)
    assert (s.data_dir, s.max_upload_bytes, s.max_rows, s.daily_limit, s.moderation) == (
        tmp_path / "d", 512 * 1024, 99, 3, True)
    assert "hf_secret" not in repr(s)
    bd = s.references["bd_hazardvlm"]
    assert (bd.hub_id, bd.hub_revision, bd.config) == ("org/bd", "v1.0.0", "demo_annotations")
    calls = {}

    def fake_download(repo_id, **options):
        calls.update(options, repo_id=repo_id)
        return str(tmp_path)

    monkeypatch.setattr("huggingface_hub.snapshot_download", fake_download)
    (tmp_path / "data" / "demo_annotations").mkdir(parents=True)  # the fetch checks the config is there
    assert bd.local_path(s.token) == tmp_path
    assert calls["repo_id"] == "org/bd" and calls["revision"] == "v1.0.0" and calls["token"] == "hf_secret"
    assert calls["repo_type"] == "dataset" and "data/demo_annotations/*" in calls["allow_patterns"]
    assert "release-manifest.json" in calls["allow_patterns"]
    for text, message in (("movsafebench", "is not NAME=SOURCE"), ("nobench=x", "unknown benchmark"),
                          ("movsafebench=hf://datasets/../x", "is not hf://datasets/ORG/NAME"),
                          ("movsafebench=x#../y", "is not a valid config name")):
        with pytest.raises(BadInput, match=message):
            parse_references(text)
    with pytest.raises(BadInput, match="is not a number"):
        SpaceSettings.from_env({"HAZARDKIT_MAX_ROWS": "many"})


def test_space_files(tmp_path):
    out = tmp_path / "space"
    hk("leaderboard", "space", "--out", out, "--title", "My board")
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "app.py", "requirements.txt"]
    readme = (out / "README.md").read_text()
    assert readme.startswith("---\ntitle: My board\n") and "sdk: gradio\n" in readme and "app_file: app.py" in readme
    assert "HF_TOKEN" in readme and "HAZARDKIT_REFERENCES" in readme
    assert (out / "requirements.txt").read_text().startswith("hazardkit[space]==")
    compile((out / "app.py").read_text(), "app.py", "exec")
    wheel = tmp_path / "hazardkit-0.1.0-py3-none-any.whl"
    wheel.write_bytes(io.BytesIO(b"PK").getvalue())
    hk("leaderboard", "space", "--out", out, "--wheel", wheel)
    assert (out / "requirements.txt").read_text() == "./hazardkit-0.1.0-py3-none-any.whl[space]\n"
    code, out_text = invoke("leaderboard", "space", "--out", out, "--requirement", "a\nb")
    assert code == 2 and "one line" in out_text


def test_a_hub_results_repo_is_pulled_when_missing_and_pushed_after_each_change(tmp_path, refs, monkeypatch):
    published = tmp_path / "hub_copy.parquet"
    pushes = []

    class FakeApi:
        def __init__(self, token=None):
            self.token = token

        def upload_file(self, *, path_or_fileobj, path_in_repo, repo_id, repo_type, commit_message):
            pushes.append((self.token, path_in_repo, repo_id, repo_type, commit_message))
            published.write_bytes(path_or_fileobj)

    def fake_download(repo_id, filename, *, repo_type, token):
        assert (repo_id, filename, repo_type, token) == ("org/results", "results.parquet", "dataset", "hf_w")
        if not published.exists():
            raise FileNotFoundError(filename)
        return str(published)

    monkeypatch.setattr("huggingface_hub.HfApi", FakeApi)
    monkeypatch.setattr("huggingface_hub.hf_hub_download", fake_download)
    lb = Leaderboard(settings(tmp_path, refs, results_repo="org/results", token="hf_w"))
    preds = predictions(refs, tmp_path / "p.jsonl")
    outcome = lb.submit(preds, "p.jsonl", "movsafebench", "m1", user="u1")
    lb.last_push.join(10)
    assert pushes == [("hf_w", "results.parquet", "org/results", "dataset",
                       f"submission {outcome.submission_id}: m1 on movsafebench")]
    # a restarted Space without its folder gets the table back from the repo
    fresh = Leaderboard(settings(tmp_path / "restarted", refs, results_repo="org/results", token="hf_w"))
    assert [r["model"] for r in read_table(fresh.settings.table)] == ["m1"]
    with pytest.raises(BadInput, match="is not ORG/NAME"):
        SpaceSettings.from_env({"HAZARDKIT_RESULTS_REPO": "../x"})


def test_a_hostile_upload_costs_at_most_the_time_limit(tmp_path, refs, monkeypatch):
    """A submission whose scoring runs away (a benchmark that takes 0.5 s per line, standing for any parser's or
    scorer's worst case) is stopped at the limit; the worker is replaced and the next submission is scored."""
    import time

    from eval_kit import registry

    monkeypatch.setenv(registry.PLUGINS_ENV, "tests.slowbench")  # read by the spawned scoring worker
    from tests import slowbench

    registry.register(slowbench.BENCHMARK)
    toy = tmp_path / "toy.jsonl"
    toy.write_text("".join(json.dumps({"id": f"n{n}", "number": n, "answer": "even" if n % 2 == 0 else "odd"}) + "\n"
                           for n in range(20)))
    try:
        lb = Leaderboard(settings(tmp_path, refs, score_timeout=3.0, references={
            "movsafebench": Reference("movsafebench", str(refs)), "slowbench": Reference("slowbench", str(toy))}))
        lb.warm()  # the worker process starts and loads the references once
        slow = tmp_path / "slow.jsonl"
        slow.write_text("".join(json.dumps({"id": f"n{n}", "prediction": "even"}) + "\n" for n in range(20)))
        start = time.perf_counter()
        outcome = lb.submit(slow, "slow.jsonl", "slowbench", "m", user="u1")
        took = time.perf_counter() - start
        assert outcome.status == "invalid" and outcome.lines == [
            "error: slow.jsonl: scoring took over 3 s and was stopped (check for very long or repetitive responses)"]
        assert took < 6, took
        assert lb.store.get(outcome.submission_id)["status"] == "invalid"
        good = lb.submit(predictions(refs, tmp_path / "p.jsonl"), "p.jsonl", "movsafebench", "m", user="u2")
        assert good.status == "published", good.lines
        lb._worker.stop()
    finally:
        registry.unregister("slowbench")


def test_a_submission_cut_short_blocks_its_user_only_for_a_while(tmp_path, refs):
    import datetime as dt

    lb = Leaderboard(settings(tmp_path, refs))
    data = predictions(refs, tmp_path / "p.jsonl").read_bytes()
    record = lb.store.create(user="u1", benchmark="movsafebench", model="m", link=None, backend=None,
                             filename="p.jsonl", data=data, kind="jsonl", daily_limit=5)  # the app died here
    assert "already have a pending submission" in lb.store.limit_problem("u1", 5)
    later = dt.datetime.fromisoformat(record["received_at"]) + dt.timedelta(minutes=16)
    assert lb.store.limit_problem("u1", 5, at=later) is None
    lb.store.update(record["id"], received_at=(later - dt.timedelta(minutes=32)).isoformat())
    [outcome] = lb.rescore()  # the operator's rescore finishes it
    assert outcome.status == "published" and lb.store.get(record["id"])["status"] == "published"
