"""openai backend throughput against a local fake OpenAI-compatible server of fixed latency.

The server (a separate process on 127.0.0.1) answers every chat completion after exactly `--latency`
seconds, so the ideal throughput of a client with `--concurrency` requests in flight is
`concurrency / latency`. Printed: the requests/s `hazardkit eval` achieves (the real harness: image data
URLs, per-sample raw-log appends, fsync every `--batch-size`), a bare client measured in the same run (threads
calling the `openai` client back to back, no images, no harness), both as ratios of the ideal, and the
server's view: its busy share (time with at least one request in flight) and slot use (mean requests in
flight / concurrency).

Two image modes. Default: 320x180 PNG (the harness's own overhead). `--real-size`: 1280x720 JPEG files, as a
real road-photo dataset is (the repository's real road photos resized to 1280x720 when ../shared/real/roads
is present, else synthetic scenes), with `--max-pixels` 1280*720 so a source JPEG needs no resizing (it
travels as its own bytes); `--max-pixels 802816` (the eval default) shows the resize path instead.

Target: >= 0.9 of ideal with --concurrency 16 --batch-size 4 (default mode --latency 0.3; --real-size
--latency 0.5) (wall time of the whole run, start-up included; the figure from the first request to the
last answer is printed beside it). `--quick`: 64 samples, a few seconds, the same figures.
Usage: python benchmarks/openai_concurrency.py [--real-size] [--n 1000] [--concurrency 16] [--batch-size 4]
       [--latency 0.3|0.5] [--max-pixels N] [--quick]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TARGET = 0.9


def serve(latency: float, port_out, stop) -> None:
    """Fixed-latency chat completions; GET /stats returns the busy intervals' totals."""
    state = {"in_flight": 0, "since": 0.0, "busy": 0.0, "area": 0.0, "last": 0.0, "first": None, "end": 0.0,
             "requests": 0}
    lock = threading.Lock()

    def account(delta: int) -> None:
        now = time.perf_counter()
        state["area"] += state["in_flight"] * (now - state["last"]) if state["first"] is not None else 0.0
        state["last"] = now
        if state["first"] is None:
            state["first"] = now
        if state["in_flight"] == 0 and delta > 0:
            state["since"] = now
        state["in_flight"] += delta
        if state["in_flight"] == 0:
            state["busy"] += now - state["since"]
            state["end"] = now

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # header and body go out as separate writes: no 40 ms delayed-ACK stall

        def log_message(self, *args):
            pass

        def do_GET(self):
            with lock:
                span = (state["end"] - state["first"]) if state["first"] is not None else 0.0
                blob = json.dumps({"requests": state["requests"], "busy": state["busy"], "span": span,
                                   "first": state["first"], "end": state["end"],
                                   "mean_in_flight": state["area"] / span if span else 0.0}).encode()
                for key in ("busy", "area", "requests", "end"):
                    state[key] = 0
                state["first"] = None
            self._send(blob)

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with lock:
                state["requests"] += 1
                account(+1)
            time.sleep(latency)
            with lock:
                account(-1)
            self._send(json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": "Answer: B"}}]}).encode())

        def _send(self, blob: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(blob)))
            self.end_headers()
            self.wfile.write(blob)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 256  # listen backlog: 16 clients connecting at once must not wait for a SYN retry

    server = Server(("127.0.0.1", 0), Handler)
    port_out.put(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stop.wait()
    server.shutdown()


def stats(url: str) -> dict:
    import urllib.request

    with urllib.request.urlopen(url.removesuffix("/v1") + "/stats") as reply:
        return json.loads(reply.read())


def bare_client(url: str, n: int, concurrency: int) -> float:
    """Requests/s of `concurrency` threads calling the openai client back to back (no harness)."""
    import openai

    client = openai.OpenAI(base_url=url, api_key="EMPTY", max_retries=0)
    counter = iter(range(n))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if next(counter, None) is None:
                    return
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], max_tokens=8)

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    client.close()
    return n / (time.perf_counter() - started)


REAL_SIZE = (1280, 720)


def real_size_jpegs(folder: Path, n: int) -> Path:
    """MovSafeBench JSON Lines over `n` 1280x720 JPEG files (quality 90), cycling through distinct pictures."""
    from PIL import Image

    from eval_kit.testing.synthetic_datasets import rows

    roads = Path(__file__).resolve().parents[1] / ".." / "shared" / "real" / "roads"
    pictures = [Image.open(p).convert("RGB").resize(REAL_SIZE) for p in sorted(roads.glob("*.jpg"))[:8]]
    if not pictures:
        print(f"note: real road photos absent (looked for {roads.resolve()}, the shared real/roads folder beside "
              "the checkout); using 8 synthetic scenes at 1280x720 instead")
        from builder.movsafebench.sources.synthetic import render_scene

        pictures = [render_scene("road", seed=i, width=REAL_SIZE[0], height=REAL_SIZE[1]).image for i in range(8)]
    (folder / "images").mkdir(parents=True, exist_ok=True)
    lines = []
    for i, row in enumerate(rows(n, seed=0) * (1 + n // max(1, len(rows(n, seed=0))))):
        if i == n:
            break
        name = f"images/{i:05d}.jpg"
        pictures[i % len(pictures)].save(folder / name, format="JPEG", quality=90)
        lines.append(json.dumps({**row, "id": f"{row['id']}-{i}", "image": name}))
    path = folder / "refs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="samples (requests)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--latency", type=float, default=None, help="server seconds per request "
                        "(default 0.3; 0.5 with --real-size)")
    parser.add_argument("--real-size", action="store_true", help="1280x720 JPEG images (a real dataset's size)")
    parser.add_argument("--max-pixels", type=int, default=None,
                        help="the backend's pixel cap (default: 1280*720 with --real-size, else the eval default)")
    parser.add_argument("--quick", action="store_true", help="64 samples: a few seconds, the same figures")
    args = parser.parse_args()
    if args.quick:
        args.n = min(args.n, 64)
    if args.latency is None:
        args.latency = 0.5 if args.real_size else 0.3
    if args.max_pixels is None:
        args.max_pixels = REAL_SIZE[0] * REAL_SIZE[1] if args.real_size else 1024 * 28 * 28

    from eval_kit import registry
    from eval_kit.runners import harness
    from eval_kit.runners.backends.openai_chat import OpenAIBackend
    from eval_kit.testing.synthetic_datasets import write_parquet_folder

    ports: multiprocessing.Queue = multiprocessing.Queue()
    stop = multiprocessing.Event()
    server = multiprocessing.Process(target=serve, args=(args.latency, ports, stop), daemon=True)
    server.start()
    url = f"http://127.0.0.1:{ports.get(timeout=30)}/v1"
    ideal = args.concurrency / args.latency
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if args.real_size:
                task = registry.make_task("movsafebench", data=real_size_jpegs(Path(tmp) / "data", args.n))
            else:
                data = write_parquet_folder(Path(tmp) / "data", args.n, seed=0, size=(320, 180))
                task = registry.make_task("movsafebench", data=data, config="demo")
            bare = bare_client(url, args.n, args.concurrency)
            stats(url)  # reset the server's counters
            backend = OpenAIBackend("m", base_url=url, concurrency=args.concurrency, max_retries=0,
                                    max_pixels=args.max_pixels)
            started = time.perf_counter()  # CLOCK_MONOTONIC: comparable with the server process's clock on Linux
            summary = harness.run(task, backend, Path(tmp) / "run", model="m", batch_size=args.batch_size,
                                  progress=False)
            seen = stats(url)
    finally:
        stop.set()
        server.join(timeout=10)
    achieved = summary.generated / summary.seconds
    start_up = seen["first"] - started
    steady = seen["requests"] / seen["span"]
    print(f"openai backend, fake server of fixed latency {args.latency:g} s, --concurrency {args.concurrency} "
          f"--batch-size {args.batch_size}, {args.n} samples "
          + (f"(1280x720 JPEG each, --max-pixels {args.max_pixels})" if args.real_size else "(320x180 PNG each)"))
    print(f"  ideal (concurrency / latency):   {ideal:7.1f} requests/s")
    print(f"  bare openai client, {args.concurrency} threads: {bare:7.1f} requests/s = {bare / ideal:.3f} of ideal")
    print(f"  hazardkit eval (harness):        {achieved:7.1f} requests/s = {achieved / ideal:.3f} of ideal "
          f"({achieved / bare:.3f} of the bare client); {summary.failed} failed")
    print(f"    of which start-up before the first request (open the data, first image): {start_up:.2f} s; "
          f"first request to last answer: {steady:.1f} requests/s = {steady / ideal:.3f} of ideal")
    print(f"  server: {seen['requests']} requests, busy {seen['busy'] / seen['span']:.3f} of the time, "
          f"slot use {seen['mean_in_flight'] / args.concurrency:.3f} (mean {seen['mean_in_flight']:.1f} in flight)")
    print(f"  target >= {TARGET} of ideal: {'met' if achieved / ideal >= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
