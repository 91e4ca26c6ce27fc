"""The generic runner: baseline runs end to end, resuming, torn lines, text-only control, repair retries."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit import registry
from eval_kit.movsafebench import spec
from eval_kit.movsafebench.task import MovSafeBenchTask
from eval_kit.runners import harness
from eval_kit.runners.backends.base import Backend
from eval_kit.runners.rawlog import RawLog
from eval_kit.testing.synthetic_datasets import write_jsonl, write_parquet_folder


@pytest.fixture(scope="module")
def parquet_data(tmp_path_factory) -> Path:
    return write_parquet_folder(tmp_path_factory.mktemp("pq"), 60, seed=3)


@pytest.fixture(scope="module")
def jsonl_data(tmp_path_factory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("jl"), 40, seed=4)


def hk(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


class Echo(Backend):
    """Answers with the colour the image encodes (so a correct 'vision' model), or 'no idea' without an image."""

    name = "echo"

    def __init__(self) -> None:
        self.calls: list[list] = []

    def settings(self):
        return {"echo": 1}

    def generate(self, samples):
        self.calls.append([s.id for s in samples])
        out = []
        for s in samples:
            if not s.images:
                out.append("no idea")
                continue
            r, g, b = s.images[0].getpixel((8, 8))
            out.append({(200, 60, 60): "A", (60, 200, 60): "B", (60, 60, 200): "C"}[(r, g, b)])
        return out


def test_majority_baseline_end_to_end(tmp_path, parquet_data):
    out = tmp_path / "run"
    code, text = hk("eval", "movsafebench", "--model", "majority", "--backend", "baseline", "--data", parquet_data,
                    "--config", "demo", "--out", out, "--no-progress")
    assert code == 0, text
    assert "60 samples: 60 generated" in text
    task = MovSafeBenchTask(parquet_data, "demo")
    labels = [s.label for s in task.samples(text_only=True)]
    majority = max(spec.ANSWERS, key=lambda a: (labels.count(a), -spec.ANSWERS.index(a)))
    records = [json.loads(x) for x in (out / "raw.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == [s.id for s in task.samples(text_only=True)]
    assert {r["prediction"] for r in records} == {majority}
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["dataset_revision"] == task.dataset_revision and meta["backend"] == "baseline"
    code, text = hk("score", "run", out, "--json")
    assert code == 0, text
    result = json.loads(text)
    from eval_kit.movsafebench.submission import load_references

    edited = [r["answer"] for r in load_references(parquet_data, "demo").values() if r["scenario"] != "no_edit"]
    assert result["accuracy"] == pytest.approx(edited.count(majority) / len(edited))
    assert result["model"] == "majority" and result["benchmark"] == "movsafebench"
    assert len(result["per_sample"]["id"]) == len(edited) == sum(1 for _ in result["per_sample"]["correct"])
    # the submission the run wrote is valid
    code, text = hk("validate", "movsafebench", "-r", parquet_data, "--config", "demo", "-p", out / "predictions.jsonl",
                    "--metadata", out / "metadata.json")
    assert code == 0, text


def test_random_baseline_is_seeded_per_sample(tmp_path, jsonl_data):
    task = registry.make_task("movsafebench", data=jsonl_data)
    from eval_kit.runners.backends.baseline import BaselineBackend

    a = harness.run(task, BaselineBackend("random", task, seed=1), tmp_path / "a", model="random", progress=False)
    b = harness.run(task, BaselineBackend("random", task, seed=1), tmp_path / "b", model="random", batch_size=3,
                    progress=False)
    c = harness.run(task, BaselineBackend("random", task, seed=2), tmp_path / "c", model="random", progress=False)
    assert a.generated == b.generated == c.generated == 40
    assert (tmp_path / "a/raw.jsonl").read_bytes() == (tmp_path / "b/raw.jsonl").read_bytes()
    preds_a = [json.loads(x)["prediction"] for x in (tmp_path / "a/raw.jsonl").read_text().splitlines()]
    preds_c = [json.loads(x)["prediction"] for x in (tmp_path / "c/raw.jsonl").read_text().splitlines()]
    assert preds_a != preds_c and set(preds_a) == set(spec.ANSWERS)


def test_resume_never_redoes_or_duplicates(tmp_path, jsonl_data):
    task = registry.make_task("movsafebench", data=jsonl_data)
    first = Echo()
    s1 = harness.run(task, first, tmp_path / "r", model="echo", limit=13, batch_size=4, progress=False)
    assert s1.generated == 13 and s1.skipped == 0
    second = Echo()
    s2 = harness.run(task, second, tmp_path / "r", model="echo", batch_size=4, progress=False)
    assert s2.skipped == 13 and s2.generated == 27
    asked = [i for call in second.calls for i in call]
    assert len(asked) == len(set(asked)) == 27
    assert not set(asked) & {i for call in first.calls for i in call}
    third = Echo()
    s3 = harness.run(task, third, tmp_path / "r", model="echo", progress=False)
    assert s3.generated == 0 and third.calls == []
    records = [json.loads(x) for x in (tmp_path / "r/raw.jsonl").read_text().splitlines()]
    assert len(records) == len({r["id"] for r in records}) == 40
    uninterrupted = harness.run(task, Echo(), tmp_path / "u", model="echo", batch_size=4, progress=False)
    assert uninterrupted.generated == 40
    assert (tmp_path / "r/raw.jsonl").read_bytes() == (tmp_path / "u/raw.jsonl").read_bytes()


def test_torn_last_line_is_cut_and_redone(tmp_path, jsonl_data):
    task = registry.make_task("movsafebench", data=jsonl_data)
    harness.run(task, Echo(), tmp_path / "u", model="echo", progress=False)
    full = (tmp_path / "u/raw.jsonl").read_bytes()
    lines = full.split(b"\n")
    (tmp_path / "t").mkdir()
    (tmp_path / "t/run.json").write_bytes((tmp_path / "u/run.json").read_bytes())
    torn = b"\n".join(lines[:10]) + b"\n" + lines[10][: len(lines[10]) // 2]  # crash mid-write of line 11
    (tmp_path / "t/raw.jsonl").write_bytes(torn)
    summary = harness.run(task, Echo(), tmp_path / "t", model="echo", progress=False)
    assert summary.torn_bytes == len(lines[10]) // 2
    assert summary.skipped == 10 and summary.generated == 30
    assert (tmp_path / "t/raw.jsonl").read_bytes() == full


def test_corrupt_line_in_the_middle_is_bad_input(tmp_path, jsonl_data):
    args = ["eval", "movsafebench", "-m", "random", "-b", "baseline", "--data", jsonl_data, "--out", tmp_path / "u",
            "--no-progress"]
    assert hk(*args, "--limit", "5")[0] == 0
    lines = (tmp_path / "u/raw.jsonl").read_text().splitlines()
    lines[1] = "{garbage"
    (tmp_path / "u/raw.jsonl").write_text("\n".join(lines) + "\n")
    code, text = hk(*args)
    assert code == 2 and "line 2: corrupt raw log line" in text and "Traceback" not in text
    assert (tmp_path / "u/raw.jsonl").read_text().splitlines()[1] == "{garbage"  # left for the user to inspect
    with pytest.raises(Exception, match="corrupt raw log line"):
        RawLog(tmp_path / "u/raw.jsonl")


def test_other_run_in_same_folder_is_refused(tmp_path, jsonl_data):
    args = ["eval", "movsafebench", "-b", "baseline", "--data", jsonl_data, "--out", tmp_path / "r", "--no-progress"]
    assert hk(*args, "-m", "fixed:left")[0] == 0
    code, text = hk(*args, "-m", "fixed:right")
    assert code == 2 and "different run" in text and "settings" in text and "Traceback" not in text


def test_text_only_control_withholds_the_image(tmp_path, jsonl_data):
    task = registry.make_task("movsafebench", data=jsonl_data)
    with_image = next(iter(task.samples()))
    without = next(iter(task.samples(text_only=True)))
    assert with_image.images and not without.images
    assert [p["type"] for p in with_image.messages[0]["content"]] == ["image", "text"]
    assert [p["type"] for p in without.messages[0]["content"]] == ["text"]
    assert with_image.messages[0]["content"][1] == without.messages[0]["content"][0]  # same question
    harness.run(task, Echo(), tmp_path / "img", model="echo", progress=False)
    harness.run(task, Echo(), tmp_path / "txt", model="echo", text_only=True, progress=False)
    img = [json.loads(x) for x in (tmp_path / "img/raw.jsonl").read_text().splitlines()]
    txt = [json.loads(x) for x in (tmp_path / "txt/raw.jsonl").read_text().splitlines()]
    assert all(r["prediction"] is not None for r in img) and all(r["prediction"] is None for r in txt)
    assert {r["key"] for r in img}.isdisjoint({r["key"] for r in txt})
    assert json.loads((tmp_path / "txt/metadata.json").read_text())["text_only"] is True
    code, text = hk("score", "run", tmp_path / "img", "--json")
    assert code == 0 and json.loads(text)["accuracy"] == 1.0  # Echo reads the answer off the image
    code, text = hk("score", "run", tmp_path / "txt", "--json")
    assert code == 0
    result = json.loads(text)
    assert result["accuracy"] == 0.0 and result["model"] == "echo (text-only)" and result["text_only"]


class RetryTask(MovSafeBenchTask):
    """MovSafeBench with a formatting-only retry when the answer cannot be parsed (as BD-HazardVLM does)."""

    def repair(self, sample, response):
        if self.parse(response) is not None:
            return None
        return [*sample.messages, {"role": "assistant", "content": [{"type": "text", "text": response}]},
                {"role": "user", "content": [{"type": "text", "text": "Reply with only the letter A, B or C."}]}]


class Sloppy(Backend):
    name = "sloppy"

    def __init__(self):
        self.seen = []

    def settings(self):
        return {}

    def generate(self, samples):
        self.seen.append([len(s.messages) for s in samples])
        return ["B" if len(s.messages) == 3 else ("A" if i % 2 else "hmm, hard to say") for i, s in enumerate(samples)]


def test_formatting_retry_goes_through_the_runner(tmp_path, jsonl_data):
    task = RetryTask(jsonl_data)
    summary = harness.run(task, Sloppy(), tmp_path / "r", model="sloppy", limit=8, batch_size=4, progress=False)
    assert summary.repaired == 4
    records = [json.loads(x) for x in (tmp_path / "r/raw.jsonl").read_text().splitlines()]
    retried = [r for r in records if "first_response" in r]
    assert len(retried) == 4
    assert all(r["first_response"] == "hmm, hard to say" and r["prediction"] == "straight" for r in retried)
    assert all(r["prediction"] == "left" for r in records if "first_response" not in r)


def test_bad_inputs_are_one_line_exit_2(tmp_path, jsonl_data):
    base = ["eval", "movsafebench", "--out", tmp_path / "x", "--no-progress"]
    cases = [
        (["-m", "random", "-b", "baseline", "--data", tmp_path / "nope.jsonl"], "not found"),
        (["-m", "fixed:up", "-b", "baseline", "--data", jsonl_data], "not a movsafebench label"),
        (["-m", "oracle", "-b", "baseline", "--data", jsonl_data], "unknown baseline"),
        (["-m", "random", "-b", "baseline", "--data", jsonl_data, "--variant", "cot"], "no prompt variant"),
    ]
    for extra, message in cases:
        code, text = hk(*base, *extra)
        assert code == 2 and message in text and "Traceback" not in text, (extra, text)
    code, text = hk("eval", "nosuchbench", "-m", "random", "-b", "baseline", "--out", tmp_path / "y")
    assert code == 2 and "unknown benchmark" in text
    code, text = hk("score", "run", tmp_path / "empty")
    assert code == 2 and "not a run folder" in text


def test_image_rows_without_image_are_bad_input(tmp_path):
    path = tmp_path / "refs.jsonl"
    path.write_text(json.dumps({"id": "a", "answer": "left", "scenario": "no_edit", "category": None,
                                "source_benchmark": "drivebench", "agent": "vehicle"}) + "\n")
    code, text = hk("eval", "movsafebench", "-m", "random", "-b", "baseline", "--data", path, "--out", tmp_path / "o")
    assert code == 2 and "no image" in text
    code, text = hk("eval", "movsafebench", "-m", "random", "-b", "baseline", "--data", path, "--out",
                    tmp_path / "o2", "--text-only", "--no-progress")
    assert code == 0, text


def test_duplicate_ids_in_the_dataset_are_bad_input(tmp_path, jsonl_data):
    lines = jsonl_data.read_text().splitlines()
    dup = tmp_path / "dup.jsonl"
    dup.write_text("\n".join([*lines[:3], lines[1]]) + "\n")
    shutil.copytree(jsonl_data.parent / "images", tmp_path / "images")  # a link out of the folder is refused
    code, text = hk("eval", "movsafebench", "-m", "random", "-b", "baseline", "--data", dup, "--out", tmp_path / "o",
                    "--no-progress")
    assert code == 2 and "duplicate sample id" in text


def test_progress_bar_shows_throughput_and_eta():
    import io

    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=150, color_system=None)
    with harness._progress(True, 100, console=console) as bar:
        job = bar.add_task("movsafebench / m", total=100)
        bar.advance(job, 40)
        bar.refresh()
    text = buffer.getvalue()
    assert "40/100" in text and "samples/s" in text and "ETA" in text


def test_score_run_reparses_the_raw_log(tmp_path, jsonl_data):
    """After a parser change, `score run` trusts the raw responses, not the predictions parsed at run time."""
    out = tmp_path / "r"
    assert hk("eval", "movsafebench", "-m", "fixed:right", "-b", "baseline", "--data", jsonl_data, "--out", out,
              "--no-progress")[0] == 0
    records = [json.loads(x) for x in (out / "raw.jsonl").read_text().splitlines()]
    for r in records:
        r["prediction"] = "left"  # what an older, buggy parser might have logged
    (out / "raw.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    code, text = hk("score", "run", out, "--json")
    assert code == 0
    result = json.loads(text)
    assert result["confusion_matrix"]["matrix"][0][2] > 0 and all(row[0] == 0 for row in
                                                                  result["confusion_matrix"]["matrix"])
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert {p["prediction"] for p in preds} == {"right"}
    assert json.loads((out / "scores.json").read_text())["accuracy"] == result["accuracy"]


class VariantTask(MovSafeBenchTask):
    """MovSafeBench with two prompt variants, the way SafeRelBench's variants plug into the runner."""

    name = "variant_demo"

    def samples(self, *, limit=None, text_only=False):
        for s in super().samples(limit=limit, text_only=text_only):
            if self.variant == "cot":
                s.messages[0]["content"][-1]["text"] += " Think step by step."
            s.variant = self.variant
            yield s


def test_prompt_variants_go_through_the_registry(tmp_path, jsonl_data, monkeypatch):
    from dataclasses import replace

    base_entry = registry.get("movsafebench")
    monkeypatch.setitem(registry._REGISTRY, "variant_demo",
                        replace(base_entry, name="variant_demo", task=f"{__name__}:VariantTask",
                                variants=("plain", "cot")))
    base = ["eval", "variant_demo", "-m", "fixed:left", "-b", "baseline", "--data", jsonl_data, "--no-progress"]
    assert hk(*base, "--out", tmp_path / "plain")[0] == 0  # the first variant is the default
    assert hk(*base, "--variant", "cot", "--out", tmp_path / "cot")[0] == 0
    plain = [json.loads(x) for x in (tmp_path / "plain/raw.jsonl").read_text().splitlines()]
    cot = [json.loads(x) for x in (tmp_path / "cot/raw.jsonl").read_text().splitlines()]
    assert {r["variant"] for r in plain} == {"plain"} and {r["variant"] for r in cot} == {"cot"}
    assert {r["key"] for r in plain}.isdisjoint(r["key"] for r in cot)  # the prompt is part of the key
    assert json.loads((tmp_path / "cot/metadata.json").read_text())["variant"] == "cot"
    code, text = hk(*base, "--variant", "json", "--out", tmp_path / "x")
    assert code == 2 and "variants: plain, cot" in text
    code, text = hk("score", "run", tmp_path / "cot", "--json")
    assert code == 0 and json.loads(text)["variant"] == "cot"


class PoisonBatch(Backend):
    """A local model whose whole batch raises when one sample is in it (as an over-long prompt does in vLLM)."""

    name = "poison"

    def __init__(self, poison: str) -> None:
        self.poison, self.calls = poison, []

    def settings(self):
        return {}

    def generate(self, samples):
        self.calls.append([s.id for s in samples])
        if any(s.id == self.poison for s in samples):
            raise ValueError(f"prompt of {self.poison} is longer than max_model_len")
        return ["A" for _ in samples]


def test_a_batch_that_raises_fails_only_the_sample_that_causes_it(tmp_path, jsonl_data):
    task = registry.make_task("movsafebench", data=jsonl_data)
    ids = [s.id for s in task.samples(limit=10, text_only=True)]
    backend = PoisonBatch(ids[5])
    summary = harness.run(task, backend, tmp_path / "r", model="p", limit=10, batch_size=4, progress=False)
    assert summary.generated == 9 and summary.failed == 1
    assert summary.failures[0]["error"] == f"ValueError: prompt of {ids[5]} is longer than max_model_len"
    assert backend.calls[1] == ids[4:8] and backend.calls[2:6] == [[i] for i in ids[4:8]]  # asked one by one
    records = [json.loads(x) for x in (tmp_path / "r/raw.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ids and "error" in records[5]
    again = harness.run(task, PoisonBatch("none"), tmp_path / "r", model="p", limit=10, progress=False)
    assert again.generated == 1 and again.skipped == 9 and again.failed == 0  # only the failed one is asked
    preds = [json.loads(x) for x in (tmp_path / "r/predictions.jsonl").read_text().splitlines()]
    assert [p["id"] for p in preds] == ids and all(p["prediction"] == "left" for p in preds)


def test_max_failures_stops_a_batch_run(tmp_path, jsonl_data):
    class Broken(PoisonBatch):
        def generate(self, samples):
            raise RuntimeError("CUDA out of memory")

    task = registry.make_task("movsafebench", data=jsonl_data)
    summary = harness.run(task, Broken("x"), tmp_path / "r", model="b", batch_size=2, progress=False,
                          max_failures=harness.FailureBudget.parse("2"))
    assert summary.stopped and summary.failed == 4  # the batch in hand is finished, then no new batch
    assert summary.total == 40 and summary.unanswered == 40
