"""HTTP requests that no server can hang or bloat: a deadline over the WHOLE request, a bound on the answer's bytes.

httpx's timeouts bound each network operation, not the request: a server that sends one byte a second (a
slowloris), drips its headers, or streams an endless chunked body never trips a 4 s read timeout. Here every
read, write and connect of a request is given only the time left until the request's deadline (set per
thread by `deadline()`), through an httpcore network backend that wraps the default one. The answer is read
raw (undecoded) and decoded here, each layer (wire bytes, every Content-Encoding) bounded by `limit` bytes,
so a 255 KB gzip body can never become 256 MiB in memory.

`abort(client)` ends every request in flight at once (their sockets are shut down): Ctrl-C never waits for a
slow server. Environment proxies (HTTP_PROXY, ...) are not used: the client connects directly to `--base-url`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import zlib
from collections.abc import Iterator
from typing import Any

_local = threading.local()


class AnswerTooLarge(Exception):
    """The answer is over the byte bound (before or after decompression); the sample fails with this reason."""


class UnsupportedEncoding(Exception):
    """The server used a Content-Encoding we did not offer (we offer gzip and deflate)."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every network operation of this thread inside the block ends by `seconds` from now."""
    _local.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.deadline = None


def _left(timeout: float | None, timeout_error: type[Exception]) -> float | None:
    end = getattr(_local, "deadline", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise timeout_error("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


def _network_classes():
    import httpcore

    class DeadlineStream(httpcore.NetworkStream):
        """A socket stream whose every operation waits at most until the current request's deadline."""

        def __init__(self, inner: Any, owner: Any = None) -> None:
            self._inner, self._owner = inner, owner

        def shutdown(self) -> None:
            """Shut the socket down from another thread: a read blocked on it returns at once."""
            sock = self._inner.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            if self._owner is not None:
                self._owner.forget(self)
            self._inner.close()

        def start_tls(self, ssl_context, server_hostname=None, timeout=None):
            inner = self._inner.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout))
            if self._owner is None:
                return DeadlineStream(inner)
            self._owner.forget(self)
            return self._owner._track(inner)

        def get_extra_info(self, info: str) -> Any:
            return self._inner.get_extra_info(info)

    class DeadlineBackend(httpcore.NetworkBackend):
        """Connections whose every operation ends by the request's deadline, and that `abort` ends at once."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner
            self._live: set[DeadlineStream] = set()
            self._lock = threading.Lock()
            self.aborted = False

        def _track(self, stream: Any) -> DeadlineStream:
            wrapped = DeadlineStream(stream, self)
            with self._lock:
                self._live.add(wrapped)
                aborted = self.aborted
            if aborted:  # connected while the client was being aborted: end it like the others
                wrapped.shutdown()
                raise httpcore.ConnectError("the run is stopping")
            return wrapped

        def forget(self, stream: DeadlineStream) -> None:
            with self._lock:
                self._live.discard(stream)

        def abort(self) -> None:
            """End every request in flight now (their reads fail at once) and refuse new connections."""
            with self._lock:
                self.aborted = True
                live = list(self._live)
            for stream in live:
                stream.shutdown()

        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            if self.aborted:
                raise httpcore.ConnectError("the run is stopping")
            return self._track(self._inner.connect_tcp(host, port, _left(timeout, httpcore.ConnectTimeout),
                                                       local_address, socket_options))

        def connect_unix_socket(self, path, timeout=None, socket_options=None):
            if self.aborted:
                raise httpcore.ConnectError("the run is stopping")
            return self._track(self._inner.connect_unix_socket(path, _left(timeout, httpcore.ConnectTimeout),
                                                               socket_options))

        def sleep(self, seconds: float) -> None:
            self._inner.sleep(seconds)

    return DeadlineBackend


def client(*, timeout: float, connections: int, headers: dict[str, str] | None = None):
    """An `httpx.Client` whose requests inside `deadline()` end by the deadline, whatever the server does."""
    import httpx

    transport = httpx.HTTPTransport(limits=httpx.Limits(max_connections=connections,
                                                        max_keepalive_connections=connections), retries=0)
    pool = getattr(transport, "_pool", None)
    inner = getattr(pool, "_network_backend", None)
    if inner is None:  # httpx / httpcore changed their insides: refuse rather than run without the bound
        raise RuntimeError("this httpx/httpcore version hides its network backend; the request deadline cannot "
                           "be enforced (pin httpx<1 and httpcore<2)")
    network = _network_classes()(inner)
    pool._network_backend = network
    made = httpx.Client(transport=transport, timeout=httpx.Timeout(timeout), headers=headers,
                        trust_env=False, follow_redirects=False)
    made._hazardkit_network = network  # for `abort`
    return made


def abort(client) -> None:
    """End every request of `client` in flight now, from any thread (Ctrl-C, --max-failures): each blocked
    read fails at once instead of waiting up to --timeout, and no new connection is made."""
    network = getattr(client, "_hazardkit_network", None)
    if network is not None:
        network.abort()


def _decoder(coding: str, limit: int):
    """A bounded decoder for one Content-Encoding layer: `feed(bytes) -> bytes`, AnswerTooLarge past `limit`."""
    if coding in ("gzip", "x-gzip"):
        wbits = 16 + zlib.MAX_WBITS
    elif coding == "deflate":
        wbits = zlib.MAX_WBITS  # zlib-wrapped; a raw deflate stream is retried below, as browsers do
    else:
        raise UnsupportedEncoding(f"the server used Content-Encoding {coding!r} (we accept gzip, deflate)")
    state = {"d": zlib.decompressobj(wbits), "out": 0, "first": True}

    def feed(data: bytes) -> bytes:
        try:
            out = state["d"].decompress(data, limit - state["out"] + 1)
        except zlib.error:
            if coding == "deflate" and state["first"]:
                state["d"] = zlib.decompressobj(-zlib.MAX_WBITS)
                out = state["d"].decompress(data, limit - state["out"] + 1)
            else:
                raise
        state["first"] = False
        state["out"] += len(out)
        if state["out"] > limit:
            raise AnswerTooLarge(f"the answer is over --max-response-bytes {limit:,} once decompressed ({coding})")
        return out

    return feed


def read_body(response, limit: int) -> bytes:
    """The response body, decoded, reading at most `limit` bytes off the wire and keeping at most `limit`
    bytes after each Content-Encoding layer; AnswerTooLarge past either bound (nothing more is read)."""
    codings = [c.strip().lower() for c in response.headers.get("content-encoding", "").split(",")]
    decoders = [_decoder(c, limit) for c in reversed(codings) if c and c != "identity"]
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise AnswerTooLarge(f"the answer is {int(length):,} bytes (Content-Length), over --max-response-bytes "
                             f"{limit:,}")
    wire = 0
    parts: list[bytes] = []
    kept = 0
    for chunk in response.iter_raw(chunk_size=65536):
        wire += len(chunk)
        if wire > limit:
            raise AnswerTooLarge(f"the answer is over --max-response-bytes {limit:,} (bytes received)")
        for feed in decoders:
            chunk = feed(chunk)
        kept += len(chunk)
        if kept > limit:
            raise AnswerTooLarge(f"the answer is over --max-response-bytes {limit:,}")
        parts.append(chunk)
    return b"".join(parts)
