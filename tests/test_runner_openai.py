"""openai backend against a real chat-completions HTTP server on 127.0.0.1 started by the test."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.runners.synthetic_data import write_jsonl

pytest.importorskip("openai")


class FakeServer:
    """Speaks just enough of /v1/chat/completions: answers from the image colour, can fail on purpose."""

    def __init__(self, *, fail_first: int = 0, always_fail: bool = False, key: str = "sk-test", delay: float = 0.0):
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.fail_first, self.always_fail, self.key, self.delay = fail_first, always_fail, key, delay
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append(body)
                    server.headers.append({"Authorization": self.headers.get("Authorization")})
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    fail = server.always_fail or len(server.requests) <= server.fail_first
                time.sleep(server.delay)
                with server.lock:
                    server.in_flight -= 1
                if self.headers.get("Authorization") != f"Bearer {server.key}":
                    return self._send(401, {"error": {"message": "bad key", "type": "invalid_request_error"}})
                if fail:
                    return self._send(500, {"error": {"message": "overloaded", "type": "server_error"}})
                text = body["messages"][0]["content"][-1]["text"]
                has_image = any(p["type"] == "image_url" for p in body["messages"][0]["content"])
                answer = "Answer: B" if has_image else "I cannot see anything."
                self._send(200, {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": answer}}],
                                 "usage": {"prompt_tokens": len(text), "completion_tokens": 2, "total_tokens": 3}})

            def _send(self, code, obj):
                blob = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(blob)))
                self.end_headers()
                self.wfile.write(blob)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


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


def test_server_failure_stops_the_run_and_keeps_finished_samples(tmp_path, data, monkeypatch):
    monkeypatch.setenv("HK_TEST_KEY", "sk-test")
    with FakeServer() as server:
        ok = run(data, tmp_path / "r", server, "--limit", "4", "--max-retries", "0")
        assert ok.exit_code == 0, ok.output
    with FakeServer(always_fail=True) as server:
        failed = run(data, tmp_path / "r", server, "--limit", "8", "--max-retries", "0", "--batch-size", "2")
    assert failed.exit_code == 1
    assert "request failed" in failed.output and "run again to resume" in failed.output
    assert "Traceback" not in failed.output
    assert len((tmp_path / "r/raw.jsonl").read_text().splitlines()) == 4
    with FakeServer() as server:
        resumed = run(data, tmp_path / "r", server, "--limit", "8", "--max-retries", "0")
    assert resumed.exit_code == 0 and "4 generated" in resumed.output and "4 resumed" in resumed.output


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
