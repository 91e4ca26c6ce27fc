"""SafeRelBench through the runner: text-only plans, prompt variants in the request key, plan baselines."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit import registry
from eval_kit.runners import harness
from eval_kit.saferelbench.prompts import build_prompt
from eval_kit.saferelbench.samples import load_samples
from tests.chat_stub import ChatStub, last_text

SAMPLES = Path(__file__).resolve().parents[1] / "manifests" / "saferelbench" / "demo.jsonl"


def hk(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def scores(out: Path) -> dict:
    code, text = hk("score", "run", out, "--json")
    assert code == 0, text
    return json.loads(text)


def test_plan_baselines_have_the_scores_their_plans_imply(tmp_path):
    samples = load_samples(SAMPLES)
    n = len(samples)
    results = {}
    for plan in ("empty", "unmitigated", "reference"):
        out = tmp_path / plan
        code, text = hk("eval", "saferelbench", "-m", f"fixed:{plan}", "-b", "baseline", "--data", SAMPLES,
                        "--out", out, "--no-progress")
        assert code == 0, text
        results[plan] = scores(out)
        assert results[plan]["num_samples"] == n and results[plan]["benchmark"] == "saferelbench"
        code, text = hk("validate", "saferelbench", "-r", SAMPLES, "-p", out / "predictions.jsonl",
                        "--metadata", out / "metadata.json")
        assert code == 0, text
    empty, unmitigated, reference = results["empty"], results["unmitigated"], results["reference"]
    assert empty["SR"] == 0 and empty["SSR"] == 0 and empty["unparsed"] == n
    assert reference["SR"] == 1 and reference["SSR"] == 1 and reference["SRec"] == 1  # the builder's self-check
    # dropping the mitigation steps keeps the task solvable but breaks the safety goals they protect
    has_mitigation = [s.id for s in samples.values() if any(s.mitigation_steps.values())]
    assert unmitigated["SR"] == 1 and unmitigated["SSR"] == pytest.approx(1 - len(has_mitigation) / n)
    assert set(unmitigated["by_relation"]) <= {"supporting", "containment", "proximity"}
    assert unmitigated["per_sample"]["id"] == list(samples)
    assert unmitigated["per_sample"]["correct"] == [s not in has_mitigation for s in samples]
    code, text = hk("eval", "saferelbench", "-m", "majority", "-b", "baseline", "--data", SAMPLES,
                    "--out", tmp_path / "m")
    assert code == 2 and "use fixed:<label>" in text and "Traceback" not in text


def test_prompt_variant_is_in_the_request_key_and_the_prompt(tmp_path):
    keys, prompts = {}, {}
    for variant in ("base", "risk_aware", "action_grounded"):
        task = registry.make_task("saferelbench", data=SAMPLES, variant=variant)
        sample = next(task.samples())
        prompts[variant] = sample.messages[0]["content"][-1]["text"]
        assert prompts[variant] == build_prompt(load_samples(SAMPLES)[sample.id], variant)
        assert sample.images == [] and sample.variant == variant
        from eval_kit.runners.backends.baseline import BaselineBackend

        harness.run(task, BaselineBackend("fixed:reference", task), tmp_path / variant, model="ref", limit=3,
                    progress=False)
        keys[variant] = {json.loads(x)["key"] for x in (tmp_path / variant / "raw.jsonl").open()}
        lines = [json.loads(x) for x in (tmp_path / variant / "predictions.jsonl").open()]
        assert {x["variant"] for x in lines} == {variant}
    assert "Safety tips" not in prompts["base"] and "Safety tips" in prompts["risk_aware"]
    assert "mitigation (" in prompts["action_grounded"] and "mitigation (" not in prompts["risk_aware"]
    assert not keys["base"] & keys["risk_aware"] and not keys["risk_aware"] & keys["action_grounded"]
    # the same folder with another variant is another run: refused, not mixed
    code, text = hk("eval", "saferelbench", "-m", "fixed:reference", "-b", "baseline", "--data", SAMPLES,
                    "--prompt-variant", "action_grounded", "--out", tmp_path / "base", "--limit", "3")
    assert code == 2 and "different run" in text and "variant" in text
    code, text = hk("eval", "saferelbench", "-m", "fixed:reference", "-b", "baseline", "--data", SAMPLES,
                    "--prompt-variant", "cautious", "--out", tmp_path / "x")
    assert code == 2 and "no prompt variant 'cautious'" in text
    result = scores(tmp_path / "risk_aware")
    assert result["model"] == "ref" and result["variant"] == "risk_aware"  # the variant is a field, not a name
    assert result["by_variant"].keys() == {"risk_aware"}


def test_text_only_flag_changes_nothing_in_the_requests(tmp_path):
    outs = {}
    for flag in ((), ("--text-only",)):
        out = tmp_path / ("t" if flag else "p")
        code, text = hk("eval", "saferelbench", "-m", "fixed:unmitigated", "-b", "baseline", "--data", SAMPLES,
                        "--out", out, "--limit", "4", "--no-progress", *flag)
        assert code == 0, text
        outs[bool(flag)] = [json.loads(x) for x in (out / "raw.jsonl").open()]
    assert [r["key"] for r in outs[True]] == [r["key"] for r in outs[False]]


def test_openai_server_plans_are_parsed_with_the_objects(tmp_path, monkeypatch):
    pytest.importorskip("openai")
    samples = load_samples(SAMPLES)

    def reply(body):
        # the reference plan in numbered lines, bare synsets resolved against the sample's objects by the scorer
        prompt = last_text(body)
        sample = next(s for s in samples.values() if build_prompt(s, "risk_aware") == prompt)
        synsets = list(sample.world.objects.values())

        def name(instance):  # a bare synset where it is unambiguous, as models often write
            synset = sample.world.objects[instance]
            return synset if synsets.count(synset) == 1 else instance

        steps = [f"{i + 1}. {a.name}({', '.join(name(x) for x in a.args)})"
                 for i, a in enumerate(sample.reference_plan)]
        return "Plan:\n" + "\n".join(steps)

    monkeypatch.setenv("HK_SR_KEY", "sk-x")
    with ChatStub(reply) as server:
        code, text = hk("eval", "saferelbench", "-m", "planner", "-b", "openai", "--data", SAMPLES, "--out",
                        tmp_path / "r", "--base-url", server.url, "--api-key-env", "HK_SR_KEY", "--prompt-variant",
                        "risk_aware", "--no-progress")
        assert code == 0, text
        assert len(server.requests) == len(samples)
        assert all("image_url" not in json.dumps(b) for b in server.requests)
        assert all("Safety tips" in last_text(b) for b in server.requests)
    result = scores(tmp_path / "r")
    assert result["unparsed"] == 0 and result["SR"] == 1 and result["SSR"] == 1
