"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1 whose answers come from a Python function."""

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatStub:
    """`reply(request body) -> assistant text`; every request body and its Authorization header are kept.

    Optional behaviour for client tests: `key` (401 unless `Bearer <key>`), `fail_first` requests and every
    request with `always_fail` answer 500, `delay` seconds per request (or `delay(body) -> seconds`);
    `max_in_flight` records concurrency and `busy` the seconds with at least one request in flight.
    `misbehave(body, n)`, called with the n-th (1-based) request of the same prompt text, returns None to
    answer normally or `(status, body)` (or `(status, body, headers)`) to send instead: a dict is sent as JSON,
    a str as it is.
    """

    def __init__(self, reply: Callable[[dict], str], *, key: str | None = None, fail_first: int = 0,
                 always_fail: bool = False, delay: float | Callable[[dict], float] = 0.0,
                 misbehave: Callable[[dict, int], tuple[int, object] | None] | None = None):
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.seen: Counter = Counter()
        self.in_flight = self.max_in_flight = 0
        self.busy = 0.0
        self._busy_since = 0.0
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
            disable_nagle_algorithm = True  # no 40 ms Nagle + delayed-ACK stall between header and body

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                auth = self.headers.get("Authorization")
                with stub.lock:
                    stub.requests.append(body)
                    stub.headers.append({"Authorization": auth})
                    if stub.in_flight == 0:
                        stub._busy_since = time.perf_counter()
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                    fail = always_fail or len(stub.requests) <= fail_first
                    stub.seen[last_text(body)] += 1
                    nth = stub.seen[last_text(body)]
                try:
                    time.sleep(delay(body) if callable(delay) else delay)
                finally:
                    with stub.lock:
                        stub.in_flight -= 1
                        if stub.in_flight == 0:
                            stub.busy += time.perf_counter() - stub._busy_since
                if key is not None and auth != f"Bearer {key}":
                    return self._send(401, {"error": {"message": "bad key", "type": "invalid_request_error"}})
                if fail:
                    return self._send(500, {"error": {"message": "overloaded", "type": "server_error"}})
                special = misbehave(body, nth) if misbehave is not None else None
                if special is not None:
                    return self._send(*special)
                self._send(200, completion(body["model"], reply(body)))

            def _send(self, code, obj, headers=None):
                blob = obj.encode() if isinstance(obj, str) else json.dumps(obj).encode()
                self.send_response(code)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(blob)))
                self.end_headers()
                self.wfile.write(blob)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                import sys

                if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up (Ctrl-C tests)
                    super().handle_error(request, client_address)

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def completion(model: str, text: str | None, finish_reason: str = "stop") -> dict:
    """A chat.completion body with one choice."""
    return {"id": "x", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": finish_reason,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def last_text(body: dict) -> str:
    """The text of the last message of a request (string or list-of-parts content)."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")
