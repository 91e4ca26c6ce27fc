"""A chat-completions server on 127.0.0.1 that attacks its client, one behaviour per sample.

Raw sockets, not http.server, so it can send what no well-behaved server would: a response one byte a
second (slowloris), headers that never end, an endless chunked body, a gzip bomb, an oversized answer, a
lone UTF-16 surrogate. The sample is read from the question's `[<id>]` tag (see
`test_runner_misbehaving_server.tagged_data`); `behaviours` maps an id to one of `BEHAVIOURS`, other ids get
a normal answer. Every connection thread ends when the client goes away or the server is stopped.
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import threading
import time

BEHAVIOURS = ("slowloris", "slow_headers", "endless_body", "gzip_bomb", "oversized", "surrogate", "ok")


def completion_body(text_json: str) -> bytes:
    """A chat.completion body whose content is the JSON string literal `text_json` (sent as written)."""
    return (b'{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,'
            b'"finish_reason":"stop","message":{"role":"assistant","content":' + text_json.encode("ascii")
            + b'}}]}')


def _bomb(megabytes: int) -> bytes:
    """A valid gzip stream of `megabytes` MiB (a JSON body padded with spaces): about 1,000 times smaller."""
    compressor_input = completion_body('"Answer: B"')[:-1] + b" " * (megabytes * 2**20) + b"}"
    return gzip.compress(compressor_input, compresslevel=9, mtime=0)


class HostileServer:
    def __init__(self, behaviours: dict[str, str], *, bomb_megabytes: int = 64, oversized_bytes: int = 5 * 2**20):
        self.behaviours = behaviours
        self.bomb = _bomb(bomb_megabytes) if "gzip_bomb" in behaviours.values() else b""
        self.oversized_bytes = oversized_bytes
        self.served: dict[str, int] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self.sock = socket.create_server(("127.0.0.1", 0), backlog=64)
        self.sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> HostileServer:
        self._acceptor.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._acceptor.join(timeout=5)
        for thread in list(self._threads):
            thread.join(timeout=5)
        self.sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            with self._lock:
                self._threads.append(thread)
            thread.start()

    def _read_request(self, conn: socket.socket) -> dict | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            body += chunk
        return json.loads(body[:length])

    def _drip(self, conn: socket.socket, data: bytes, interval: float = 1.0) -> None:
        """`data` one byte per `interval` seconds, then (for headers that never end) more of the same."""
        for byte in data:
            if self._stop.wait(interval):
                return
            conn.sendall(bytes([byte]))

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        try:
            with conn:
                while not self._stop.is_set():
                    body = self._read_request(conn)
                    if body is None:
                        return
                    content = body["messages"][-1]["content"]
                    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
                    sample = re.match(r"\[([^\]]+)\]", text).group(1)
                    with self._lock:
                        self.served[sample] = self.served.get(sample, 0) + 1
                    if not self._respond(conn, self.behaviours.get(sample, "ok")):
                        return
        except OSError:
            return  # the client hung up on us: that is the point

    def _respond(self, conn: socket.socket, behaviour: str) -> bool:
        """Send the behaviour's answer; True when the connection may serve another request."""
        if behaviour == "slowloris":  # a complete, valid answer, one byte a second: hours for a few hundred bytes
            self._drip(conn, _response(completion_body('"Answer: B"')))
            return False
        if behaviour == "slow_headers":  # a status line, then header bytes that never end
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            self._drip(conn, b"X-Padding: " + b"a" * 100_000)
            return False
        if behaviour == "endless_body":  # chunked, as fast as the client reads, forever
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b" " * 65536
            frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
            while not self._stop.is_set():
                conn.sendall(frame)
            return False
        if behaviour == "gzip_bomb":
            conn.sendall(_response(self.bomb, extra=b"Content-Encoding: gzip\r\n"))
            return True
        if behaviour == "oversized":  # a valid answer of oversized_bytes, no Content-Length (read to the close)
            blob = completion_body(json.dumps("Answer: B " + "x" * self.oversized_bytes))
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" + blob)
            return False
        if behaviour == "surrogate":  # JSON allows the escape; no UTF-8 file can hold the code point
            conn.sendall(_response(completion_body('"Answer: B \\ud800 \\udfff end"')))
            return True
        conn.sendall(_response(completion_body('"Answer: B"')))
        return True


def _response(body: bytes, extra: bytes = b"") -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra
            + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)


def wait_for(predicate, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()
