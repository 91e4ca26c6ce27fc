"""Ray engine faults (issue 23): a lost worker node, a wrong --ray-address, a SIGKILLed driver.

Each test kills every process it starts, by PID. The node is removed when the run has got that far (files
the gated fake worker writes), never after a sleep.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from builder.movsafebench.hazardforge.run import run_jobs
from builder.movsafebench.hazardforge.runstore import RunStore
from eval_kit.errors import BadInput
from tests.cli_helpers import invoke
from tests.fake_forge_worker import FakeWorkerFactory, GatedWorkerFactory, make_jobs
from tests.test_forge_run_engine import INFO, snapshot

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")
ROOT = Path(__file__).resolve().parent.parent


def wait_for(predicate, what: str, limit_s: float = 180.0):
    """Poll `predicate` (a bound on a broken run, not a timing assumption)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def kill_all(pids: list[tuple[int, float]]) -> None:
    """SIGKILL each (pid, start time) still alive; Ray's agents ignore SIGTERM."""
    for pid, started in pids:
        try:
            proc = psutil.Process(pid)
            if abs(proc.create_time() - started) < 0.01:
                proc.kill()
        except psutil.Error:
            pass


def descendants(pid: int) -> list[tuple[int, float]]:
    out = []
    for child in psutil.Process(pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            out.append((child.pid, child.create_time()))
    return out


def start_cluster(started: list[tuple[int, float]], attempts: int = 3):
    """A head with no CPUs and two one-CPU worker nodes. Ray gives a node a fixed 30 s to register, which an
    overloaded CI machine can miss: then everything it started is killed and it is tried again."""
    from ray.cluster_utils import Cluster

    for attempt in range(attempts):
        cluster = None
        try:
            cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
            workers = [cluster.add_node(num_cpus=1) for _ in range(2)]  # one actor per worker node
            cluster.wait_for_nodes()
            return cluster, workers
        except Exception:
            if attempt == attempts - 1:
                raise
            started.extend(descendants(os.getpid()))
            if cluster is not None:
                cluster.shutdown()
            kill_all(started)
    raise AssertionError("unreachable")


def test_ray_run_survives_losing_a_worker_node(tmp_path):
    jobs = make_jobs(8)
    reference = RunStore(tmp_path / "reference")
    reference.init(INFO)
    run_jobs(jobs, reference, FakeWorkerFactory(), progress=False)

    gate = tmp_path / "gate"
    gate.mkdir()
    started: list[tuple[int, float]] = []
    cluster, workers = start_cluster(started)
    try:
        store = RunStore(tmp_path / "ray")
        store.init(INFO)
        removed: dict[str, str] = {}

        def lose_a_node() -> None:
            # jobs 0-3 run freely; jobs 4 and 5 wait at the gate, one on each node: remove the node of one
            # of them while it is in flight, then open the gate
            seen = wait_for(lambda: sorted(gate.glob("started-*")) if len(list(gate.glob("started-*"))) >= 2
                            else None, "two gated jobs in flight")
            node_id, worker_pid = seen[0].read_text().split()
            victim = next(n for n in workers if n.node_id == node_id)
            started.extend(descendants(os.getpid()))
            removed["job"] = seen[0].name.removeprefix("started-")
            cluster.remove_node(victim, allow_graceful=False)

            def gone() -> bool:  # the in-flight job's process must be dead before the gate opens
                try:
                    return psutil.Process(int(worker_pid)).status() == psutil.STATUS_ZOMBIE
                except psutil.NoSuchProcess:
                    return True

            wait_for(gone, "the removed node's actor process to end", limit_s=60)
            (gate / "open").write_text("")

        remover = threading.Thread(target=lose_a_node, daemon=True)
        remover.start()
        summary = run_jobs(jobs, store, GatedWorkerFactory(str(gate), 4), engine="ray", num_workers=2,
                           ray_address=cluster.address, progress=False)
        remover.join(timeout=60)
        assert removed, "the node was never removed"
        assert summary.processed == 8 and summary.lost_jobs >= 1
        # every job once, and the files are those of the clean local run
        records = list(store.records())
        assert sorted(r["job_id"] for r in records) == sorted(j["job_id"] for j in jobs)
        assert snapshot(store.root) == snapshot(reference.root)
    finally:
        started.extend(descendants(os.getpid()))
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()
        kill_all(started)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_wrong_ray_address_is_one_line_quickly(tmp_path):
    from builder.movsafebench.hazardforge.ray_engine import check_ray_address

    # nothing listens: refused at once
    with pytest.raises(BadInput, match=r"no Ray cluster at --ray-address 127\.0\.0\.1:"):
        check_ray_address(f"127.0.0.1:{closed_port()}")
    with pytest.raises(BadInput, match="is not HOST:PORT"):
        check_ray_address("nonsense")
    # something listens but is not Ray: the probe child is killed at the limit
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    try:
        with pytest.raises(BadInput, match="within 3 s"):
            check_ray_address(f"127.0.0.1:{server.getsockname()[1]}", connect_timeout_s=3)
    finally:
        server.close()
    # through the CLI: exit 2, one line, before the run directory is made
    plan = tmp_path / "plan.jsonl"
    code, out = invoke("forge", "synthetic", tmp_path / "scenes", "-n", "1", "--width", "320", "--height", "180")
    assert code == 0, out
    code, out = invoke("forge", "plan", tmp_path / "scenes" / "sources.jsonl", "--out", plan)
    assert code == 0, out
    code, out = invoke("forge", "run", plan, "--out", tmp_path / "run", "--engine", "ray", "--ray-address",
                       f"127.0.0.1:{closed_port()}", "--no-progress")
    assert code == 2 and "--ray-address" in out and "Traceback" not in out
    assert len(out.strip().splitlines()) == 1, out
    assert not (tmp_path / "run").exists()


def test_killed_driver_leaves_no_ray_process(tmp_path):
    gate = tmp_path / "gate"
    gate.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = str(ROOT / "tests" / "fake_forge_worker.py")
    tree: list[tuple[int, float]] = []
    for attempt in range(2):  # Ray's fixed 30 s node start can fail on an overloaded machine: once more then
        driver = subprocess.Popen([sys.executable, script, str(tmp_path / "run"), "3", "0", "ray", str(gate), "0"],
                                  env=env, start_new_session=True)
        wait_for(lambda d=driver: list(gate.glob("started-*")) or d.poll() is not None, "the actor to start a job")
        if driver.poll() is None or attempt == 1:
            break
        time.sleep(2)  # the failed driver's watchdog ends its processes after its grace period
    assert driver.poll() is None, "the driver could not start Ray"
    try:
        tree = descendants(driver.pid)
        names = {psutil.Process(pid).name() for pid, _ in tree if psutil.pid_exists(pid)}
        assert any("raylet" in n for n in names), names
        driver.send_signal(signal.SIGKILL)
        driver.wait()

        def alive() -> list[int]:
            out = []
            for pid, started in tree:
                try:
                    proc = psutil.Process(pid)
                    if abs(proc.create_time() - started) < 0.01 and proc.status() != psutil.STATUS_ZOMBIE:
                        out.append(pid)
                except psutil.Error:
                    pass
            return out

        wait_for(lambda: not alive(), "Ray's processes to end after the driver was killed", limit_s=60)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        kill_all(tree)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["plan_sha256"] == "fake"
