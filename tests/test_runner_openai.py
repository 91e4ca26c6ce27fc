"""openai backend against a real chat-completions HTTP server on 127.0.0.1 started by the test."""

import json

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.testing.synthetic_datasets import write_jsonl
from tests.chat_stub import ChatStub

pytest.importorskip("openai")


def _answer(body: dict) -> str:
    """Answers B when the request carries an image, and admits blindness when it does not."""
    has_image = any(p["type"] == "image_url" for p in body["messages"][0]["content"])
    return "Answer: B" if has_image else "I cannot see anything."


def FakeServer(**behaviour) -> ChatStub:
    """Speaks just enough of /v1/chat/completions; can fail on purpose (see ChatStub)."""
    return ChatStub(_answer, key="sk-test", **behaviour)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("data"), 12, seed=1)


def run(data, out, server, *extra, key_env="HK_TEST_KEY"):
    return CliRunner().invoke(cli, ["eval", "movsafebench", "--model", "served-vlm", "--backend", "openai", "--data",
                                    str(data), "--out", str(out), "--base-url", server.url, "--api-key-env", key_env,
                                    "--no-progress", *extra])


def test_chat_completions_with_images_concurrency_and_retry(tmp_path, data, monkeypatch):
    monkeypatch.setenv("HK_TEST_KEY", "sk-test")
    with FakeServer(fail_first=1, delay=0.05) as server:
        result = run(data, tmp_path / "r", server, "--concurrency", "4", "--batch-size", "8", "--max-retries", "2",
                     "--max-pixels", "1200")
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 12 + 1  # one 500, retried
    assert server.max_in_flight > 1  # requests of a batch went out concurrently
    body = server.requests[-1]
    assert body["model"] == "served-vlm" and body["temperature"] == 0.0 and body["max_tokens"] == 256
    parts = body["messages"][0]["content"]
    assert parts[0]["type"] == "image_url" and parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    import base64
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(parts[0]["image_url"]["url"].split(",", 1)[1])))
    assert image.width * image.height <= 1200  # capped from 96x54
    assert all(h.get("Authorization") == "Bearer sk-test" for h in server.headers)
    records = [json.loads(x) for x in (tmp_path / "r/raw.jsonl").read_text().splitlines()]
    assert len(records) == 12 and {r["prediction"] for r in records} == {"straight"}


def test_failing_server_keeps_finished_samples_and_the_rerun_asks_the_rest(tmp_path, data, monkeypatch):
    monkeypatch.setenv("HK_TEST_KEY", "sk-test")
    with FakeServer() as server:
        ok = run(data, tmp_path / "r", server, "--limit", "4", "--max-retries", "0")
        assert ok.exit_code == 0, ok.output
    with FakeServer(always_fail=True) as server:
        failed = run(data, tmp_path / "r", server, "--limit", "8", "--max-retries", "0", "--batch-size", "2")
    assert failed.exit_code == 3, failed.output
    assert "4 sample(s) failed" in failed.output and "HTTP 500: 'overloaded' (after 1 attempt)" in failed.output
    assert "run the same command again" in failed.output and "Traceback" not in failed.output
    records = [json.loads(x) for x in (tmp_path / "r/raw.jsonl").read_text().splitlines()]
    assert len(records) == 8 and sum("error" in r for r in records) == 4
    with FakeServer() as server:
        resumed = run(data, tmp_path / "r", server, "--limit", "8", "--max-retries", "0")
        assert len(server.requests) == 4  # only the failed ones
    assert resumed.exit_code == 0 and "4 generated" in resumed.output and "4 resumed" in resumed.output


def test_continuous_concurrency_is_not_bounded_by_the_batch_size(tmp_path, data, monkeypatch):
    monkeypatch.setenv("HK_TEST_KEY", "sk-test")
    with FakeServer(delay=0.1) as server:
        result = run(data, tmp_path / "r", server, "--concurrency", "6", "--batch-size", "2")
    assert result.exit_code == 0, result.output
    assert server.max_in_flight == 6  # lock-step batches would have kept it at 2
    ids = [json.loads(x)["id"] for x in (tmp_path / "r/predictions.jsonl").read_text().splitlines()]
    assert ids == [json.loads(x)["id"] for x in data.read_text().splitlines()]  # dataset order, not arrival order


def test_wrong_key_is_bad_input(tmp_path, data, monkeypatch):
    monkeypatch.setenv("HK_TEST_KEY", "sk-wrong")
    with FakeServer() as server:
        result = run(data, tmp_path / "r", server, "--max-retries", "0")
    assert result.exit_code == 2 and "refused the API key" in result.output and "HK_TEST_KEY" in result.output


def test_missing_key_without_base_url_is_bad_input(tmp_path, data, monkeypatch):
    monkeypatch.delenv("HK_NO_SUCH_KEY", raising=False)
    result = CliRunner().invoke(cli, ["eval", "movsafebench", "-m", "gpt", "-b", "openai", "--data", str(data),
                                      "--out", str(tmp_path / "r"), "--api-key-env", "HK_NO_SUCH_KEY"])
    assert result.exit_code == 2 and "HK_NO_SUCH_KEY is not set" in result.output


def test_text_only_sends_no_image(tmp_path, data, monkeypatch):
    monkeypatch.setenv("HK_TEST_KEY", "sk-test")
    with FakeServer() as server:
        result = run(data, tmp_path / "r", server, "--text-only", "--limit", "3")
    assert result.exit_code == 0, result.output
    assert all(p["type"] == "text" for body in server.requests for p in body["messages"][0]["content"])
