"""BD-HazardVLM with the tiny random-weight Qwen2.5-VL on CPU: random text is never schema-valid, so every
sample takes the one formatting retry, a three-turn conversation with the image, batched with left padding."""

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from click.testing import CliRunner

from builder.cli import cli
from tests.test_runner_transformers import tiny_qwen  # noqa: F401  (fixture)

DEMO = Path(__file__).resolve().parents[1] / "manifests" / "bd_hazardvlm" / "v1" / "demo"


def test_tiny_qwen_takes_exactly_one_retry_per_sample(tiny_qwen, tmp_path):  # noqa: F811
    args = ["eval", "bd-hazardvlm", "--model", str(tiny_qwen), "--backend", "transformers", "--data",
            str(DEMO / "annotations.jsonl"), "--images", str(DEMO / "sources"), "--limit", "2", "--batch-size", "2",
            "--max-new-tokens", "3", "--max-pixels", str(56 * 56), "--device", "cpu", "--no-progress",
            "--retry", "once"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "2 generated" in result.output and "2 formatting retries" in result.output
    lines = [json.loads(x) for x in (tmp_path / "r" / "predictions.jsonl").open()]
    assert [x["retried"] for x in lines] == [True, True]
    assert all(isinstance(x["initial_response"], str) and isinstance(x["response"], str) for x in lines)
    scores = json.loads(CliRunner().invoke(cli, ["score", "run", str(tmp_path / "r"), "--json"]).output)
    assert scores["schema"]["retry_count"] == 2 and scores["schema"]["valid_rate"] == 0.0
