"""BD-HazardVLM through the runner: demo Parquet and JSONL + image folder, baselines, the one formatting retry."""

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit import registry
from eval_kit.bd_hazardvlm import spec
from eval_kit.runners import harness
from eval_kit.runners.backends.base import Backend

DEMO = Path(__file__).resolve().parents[1] / "manifests" / "bd_hazardvlm" / "v1" / "demo"


def hk(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory) -> Path:
    """What `hazardkit reconstruct bd-hazardvlm --demo` writes: OUT/data/demo/*.parquet with images."""
    out = tmp_path_factory.mktemp("bd") / "bd_hazardvlm"
    code, text = hk("reconstruct", "bd-hazardvlm", "--demo", "--out", out)
    assert code == 0, text
    return out


def references() -> list[dict]:
    return [json.loads(x) for x in (DEMO / "annotations.jsonl").read_text().splitlines() if x.strip()]


class Scripted(Backend):
    """Answers from a script per call: the first call's answers, then the retry's answers; records requests."""

    name = "scripted"

    def __init__(self, first, retry=None):
        self.first, self.retry, self.calls = first, retry, []

    def settings(self):
        return {"script": "v1"}

    def generate(self, samples):
        self.calls.append(list(samples))
        is_retry = any(m["role"] == "assistant" for m in samples[0].messages)
        return [(self.retry if is_retry else self.first)(s) for s in samples]


def answer_for(ref: dict, **change) -> str:
    obj = {"hazard_present": ref["hazard_present"], "primary_hazard_category": ref["primary_hazard_category"],
           "risk_timing": ref["risk_timing"], "severity": ref["severity"],
           "defensive_actions": ref["defensive_actions"], "evidence": "x",
           "possible_hallucination": ref["hallucination_trap"], "possible_western_road_bias": False}
    obj.update(change)
    return json.dumps(obj)


def test_majority_and_fixed_baselines_on_the_demo_parquet(tmp_path, demo_data):
    refs = references()
    counts = Counter(r["primary_hazard_category"] for r in refs)
    majority = max(spec.CATEGORIES, key=lambda c: (counts.get(c, 0), -spec.CATEGORIES.index(c)))
    for model, label in (("majority", majority), ("fixed:no_major_hazard", "no_major_hazard")):
        out = tmp_path / model.replace(":", "_")
        code, text = hk("eval", "bd-hazardvlm", "-m", model, "-b", "baseline", "--data", demo_data, "--out", out,
                        "--no-progress")
        assert code == 0, text
        assert f"{len(refs)} samples: {len(refs)} generated" in text and "0 formatting retries" in text
        code, text = hk("score", "run", out, "--json")
        assert code == 0, text
        result = json.loads(text)
        assert result["benchmark"] == "bd_hazardvlm" and result["num_samples"] == len(refs)
        assert result["category"]["accuracy"] == pytest.approx(counts[label] / len(refs))
        assert result["schema"]["valid_rate"] == 1.0 and result["schema"]["retry_count"] == 0
        assert set(result["category"]["prediction_distribution"].items()) >= {(label, len(refs))}
        assert len(result["per_sample"]["id"]) == len(refs) and len(result["per_sample_tasks"]["timing"]) == len(refs)
        assert result["ci95"][0] <= result["category"]["accuracy"] <= result["ci95"][1]
        # the submission the run wrote validates against the same references, metadata included
        code, text = hk("validate", "bd-hazardvlm", "-r", demo_data, "-p", out / "predictions.jsonl",
                        "--metadata", out / "metadata.json")
        assert code == 0, text
    control = [r for r in refs if r["primary_hazard_category"] == "no_major_hazard"]
    fixed = json.loads((tmp_path / "fixed_no_major_hazard" / "scores.json").read_text())
    # the control answer is right on every field of a control scene: timing accuracy = control share
    assert fixed["timing"]["accuracy"] == pytest.approx(len(control) / len(refs))


def test_random_baseline_is_seeded_and_fixed_label_is_checked(tmp_path, demo_data):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert hk("eval", "bd-hazardvlm", "-m", "random", "-b", "baseline", "--data", demo_data, "--out", out,
                  "--seed", "3", "--no-progress")[0] == 0
    assert (a / "raw.jsonl").read_bytes() == (b / "raw.jsonl").read_bytes()
    categories = {json.loads(x)["prediction"]["primary_hazard_category"] for x in (a / "raw.jsonl").open()}
    assert len(categories) > 3
    code, text = hk("eval", "bd-hazardvlm", "-m", "fixed:tiger", "-b", "baseline", "--data", demo_data,
                    "--out", tmp_path / "c")
    assert code == 2 and "not a bd_hazardvlm label" in text and "Traceback" not in text


def test_jsonl_with_image_folder_and_text_only_control(tmp_path):
    task = registry.make_task("bd-hazardvlm", data=DEMO / "annotations.jsonl", images=DEMO / "sources")
    with_images = list(task.samples(limit=3))
    assert [len(s.images) for s in with_images] == [1, 1, 1] and with_images[0].images[0].size == (192, 108)
    assert with_images[0].messages[0]["content"][0] == {"type": "image"}
    text_only = list(task.samples(limit=3, text_only=True))
    assert all(not s.images for s in text_only)
    assert text_only[0].messages[0]["content"] == [{"type": "text", "text": spec.PROMPT}]
    # the control run is a different run: its request keys differ, so it never resumes into the image run
    from eval_kit.runners.backends.baseline import BaselineBackend

    harness.run(task, BaselineBackend("majority", task), tmp_path / "img", model="majority", limit=4,
                progress=False)
    harness.run(task, BaselineBackend("majority", task), tmp_path / "txt", model="majority", limit=4,
                text_only=True, progress=False)
    keys = [{json.loads(x)["key"] for x in (tmp_path / d / "raw.jsonl").open()} for d in ("img", "txt")]
    assert not keys[0] & keys[1]
    assert json.loads((tmp_path / "txt" / "metadata.json").read_text())["text_only"] is True
    code, text = hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", DEMO / "annotations.jsonl",
                    "--out", tmp_path / "noimg")
    assert code == 2 and "--images" in text and "Traceback" not in text
    code, text = hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", DEMO / "annotations.jsonl",
                    "--images", tmp_path, "--out", tmp_path / "wrongimg")
    assert code == 2 and "not found under" in text
    code, text = hk("eval", "movsafebench", "-m", "majority", "-b", "baseline", "--images", tmp_path,
                    "--out", tmp_path / "msb")
    assert code == 2 and "takes no --images" in text


def test_one_formatting_retry_is_logged_and_scored(tmp_path):
    refs = {r["id"]: r for r in references()}
    task = registry.make_task("bd-hazardvlm", data=DEMO / "annotations.jsonl", images=DEMO / "sources",
                              retry="once")
    # ids ending in an odd digit first answer in prose (not schema-valid); the retry returns valid JSON,
    # except for _0003, whose retry is prose again: there is never a second retry
    def first(s):
        return "A rickshaw is ahead, slow down." if int(s.id[-1]) % 2 else answer_for(refs[s.id])

    def retry(s):
        return "still prose" if s.id.endswith("0003") else answer_for(refs[s.id], evidence="retry")

    backend = Scripted(first, retry)
    summary = harness.run(task, backend, tmp_path / "r", model="scripted", limit=8, batch_size=4, progress=False)
    odd = [i for i in list(refs)[:8] if int(i[-1]) % 2]
    assert summary.repaired == len(odd) == 4
    assert len(backend.calls) == 4  # two batches, each with one retry call: never a second retry
    retried = [s for call in backend.calls for s in call if any(m["role"] == "assistant" for m in s.messages)]
    assert sorted(s.id for s in retried) == odd
    sample = retried[0]
    assert len(sample.images) == 1  # the same image, nothing more
    assert [m["role"] for m in sample.messages] == ["user", "assistant", "user"]
    repair = sample.messages[-1]["content"][-1]["text"]
    assert repair == spec.repair_prompt("A rickshaw is ahead, slow down.")
    assert sample.messages[0] == next(iter(task.samples(limit=1))).messages[0]
    raw = [json.loads(x) for x in (tmp_path / "r" / "raw.jsonl").open()]
    assert [("first_response" in r) for r in raw] == [bool(int(r["id"][-1]) % 2) for r in raw]
    lines = {json.loads(x)["id"]: json.loads(x) for x in (tmp_path / "r" / "predictions.jsonl").open()}
    one = lines[odd[0]]
    assert one["retried"] is True and one["initial_response"] == "A rickshaw is ahead, slow down."
    assert json.loads(one["response"])["evidence"] == "retry"
    even = lines[next(i for i in lines if not int(i[-1]) % 2)]
    assert even["retried"] is False and even["initial_response"] == even["response"]
    code, text = hk("score", "run", tmp_path / "r", "--json")
    assert code == 0, text
    result = json.loads(text)
    assert result["schema"]["retry_count"] == 4 and result["schema"]["retried_then_valid"] == 3
    assert result["schema"]["initial_valid_rate"] == pytest.approx(4 / 8)
    assert result["schema"]["valid_rate"] == pytest.approx(7 / 8)
    assert result["category"]["accuracy"] == pytest.approx(7 / 8) and result["partial"] is True


def test_resume_after_limit_and_offline_rescore(tmp_path, demo_data):
    out = tmp_path / "r"
    assert hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", demo_data, "--out", out,
              "--limit", "7", "--batch-size", "3", "--no-progress")[0] == 0
    code, text = hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", demo_data, "--out", out,
                    "--batch-size", "3", "--no-progress")
    assert code == 0 and "13 generated" in text and "7 resumed from the log" in text
    raw = [json.loads(x) for x in (out / "raw.jsonl").open()]
    assert len(raw) == len({r["id"] for r in raw}) == 20
    # a response edited in the log (as after a parser change): `score run` re-parses from the raw text
    raw[0]["response"] = "no json at all"
    (out / "raw.jsonl").write_text("".join(json.dumps(r) + "\n" for r in raw))
    result = json.loads(hk("score", "run", out, "--json")[1])
    assert result["schema"]["valid_rate"] == pytest.approx(19 / 20)
    assert result["schema"]["invalid_field_counts"]["primary_hazard_category"] == 1


def test_incomplete_reconstruction_and_missing_parquet_are_flagged(tmp_path):
    import shutil

    sources = tmp_path / "sources"
    shutil.copytree(DEMO / "sources", sources)
    victim = read_first_manifest_path(sources)
    victim.unlink()
    out = tmp_path / "bd"
    code, text = hk("reconstruct", "bd-hazardvlm", "--manifest", DEMO / "image_manifest.jsonl", "--annotations",
                    DEMO / "annotations.jsonl", "--source", f"rsud20k={sources / 'rsud20k'}",
                    "--source", f"tfp-bd={sources / 'tfp_bd'}", "--allow-missing", "--out", out)
    assert code == 0, text
    result = CliRunner().invoke(cli, ["eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", str(out),
                                      "--out", str(tmp_path / "r"), "--no-progress"])
    assert result.exit_code == 0 and "INCOMPLETE reconstruction (19 of 20 images)" in result.output
    scored = CliRunner().invoke(cli, ["score", "run", str(tmp_path / "r")])
    assert scored.exit_code == 0 and "INCOMPLETE" in scored.output and "not BD-HazardVLM scores" in scored.output
    code, text = hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", tmp_path / "empty_dir",
                    "--out", tmp_path / "x")
    assert code == 2 and "dataset not found" in text
    (tmp_path / "empty_dir").mkdir()
    code, text = hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", tmp_path / "empty_dir",
                    "--out", tmp_path / "x")
    assert code == 2 and "hazardkit reconstruct bd-hazardvlm" in text and "Traceback" not in text


def read_first_manifest_path(sources: Path) -> Path:
    entry = json.loads((DEMO / "image_manifest.jsonl").read_text().splitlines()[0])
    return sources / entry["source_dataset"] / entry["path"]
