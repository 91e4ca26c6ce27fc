"""BD-HazardVLM over a real OpenAI-compatible HTTP server on 127.0.0.1: image sent, one formatting retry."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from tests.chat_stub import ChatStub, last_text

pytest.importorskip("openai")

DEMO = Path(__file__).resolve().parents[1] / "manifests" / "bd_hazardvlm" / "v1" / "demo"
VALID = {"hazard_present": True, "primary_hazard_category": "rickshaw_easybike", "risk_timing": "latent",
         "severity": "medium", "defensive_actions": ["slow_down"], "evidence": "rickshaw",
         "possible_hallucination": False, "possible_western_road_bias": True}


def reply(body: dict) -> str:
    """Prose (schema-invalid) at first; after the repair prompt, valid JSON. Text-only: a control answer."""
    has_image = any(p.get("type") == "image_url" for m in body["messages"] if isinstance(m["content"], list)
                    for p in m["content"])
    if "does not follow the required output format" in last_text(body):
        return "```json\n" + json.dumps(VALID) + "\n```"
    if not has_image:
        return json.dumps({**VALID, "hazard_present": False, "primary_hazard_category": "no_major_hazard",
                           "risk_timing": "none", "severity": "low", "defensive_actions": ["no_action"]})
    return "I see a rickshaw; the risk timing is both immediate and latent-ish."


def test_openai_backend_with_the_formatting_retry(tmp_path, monkeypatch):
    monkeypatch.setenv("HK_BD_KEY", "sk-x")
    common = ["eval", "bd-hazardvlm", "-m", "served-vlm", "-b", "openai", "--data", str(DEMO / "annotations.jsonl"),
              "--images", str(DEMO / "sources"), "--api-key-env", "HK_BD_KEY", "--limit", "5", "--no-progress",
              "--retry", "once"]
    with ChatStub(reply) as server:
        result = CliRunner().invoke(cli, [*common, "--base-url", server.url, "--out", str(tmp_path / "img")])
        assert result.exit_code == 0, result.output
        assert "5 formatting retries" in result.output
        assert len(server.requests) == 10  # 5 first answers + exactly one retry each
        retry = next(b for b in server.requests if len(b["messages"]) == 3)
        assert [m["role"] for m in retry["messages"]] == ["user", "assistant", "user"]
        assert retry["messages"][0]["content"][0]["type"] == "image_url"  # same image, nothing added
        assert "both immediate and latent-ish" in retry["messages"][1]["content"][0]["text"]
        control = CliRunner().invoke(cli, [*common, "--base-url", server.url, "--out", str(tmp_path / "txt"),
                                           "--text-only"])
        assert control.exit_code == 0 and "0 formatting retries" in control.output
    lines = [json.loads(x) for x in (tmp_path / "img" / "predictions.jsonl").open()]
    assert all(x["retried"] and "rickshaw;" in x["initial_response"] for x in lines)
    scores = json.loads(CliRunner().invoke(cli, ["score", "run", str(tmp_path / "img"), "--json"]).output)
    assert scores["schema"]["initial_valid_rate"] == 0.0 and scores["schema"]["valid_rate"] == 1.0
    assert scores["schema"]["retry_count"] == 5
    control_scores = json.loads(CliRunner().invoke(cli, ["score", "run", str(tmp_path / "txt"), "--json"]).output)
    assert control_scores["model"] == "served-vlm (text-only)" and control_scores["text_only"] is True
    assert control_scores["category"]["prediction_distribution"]["no_major_hazard"] == 5
