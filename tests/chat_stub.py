"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1 whose answers come from a Python function."""

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatStub:
    """`reply(request body) -> assistant text`; every request body and its Authorization header are kept.

    Optional behaviour for client tests: `key` (401 unless `Bearer <key>`), `fail_first` requests and every
    request with `always_fail` answer 500, `delay` seconds per request; `max_in_flight` records concurrency.
    """

    def __init__(self, reply: Callable[[dict], str], *, key: str | None = None, fail_first: int = 0,
                 always_fail: bool = False, delay: float = 0.0):
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                auth = self.headers.get("Authorization")
                with stub.lock:
                    stub.requests.append(body)
                    stub.headers.append({"Authorization": auth})
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                    fail = always_fail or len(stub.requests) <= fail_first
                time.sleep(delay)
                with stub.lock:
                    stub.in_flight -= 1
                if key is not None and auth != f"Bearer {key}":
                    return self._send(401, {"error": {"message": "bad key", "type": "invalid_request_error"}})
                if fail:
                    return self._send(500, {"error": {"message": "overloaded", "type": "server_error"}})
                self._send(200, {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": reply(body)}}],
                                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

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


def last_text(body: dict) -> str:
    """The text of the last message of a request (string or list-of-parts content)."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")
