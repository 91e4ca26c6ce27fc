"""The Ray half of the run engine: actors that survive lost nodes, a bounded connect, no processes left behind.

Why each piece exists (issue 23):
- **Lost worker nodes.** Ray's `ActorPool` gives up on the first `ActorUnavailableError`, so losing a node
  ended a run at job 310 of 528. Here every actor is created with `max_restarts` and the driver dispatches
  one job at a time per actor: a job whose actor (or node) died is put back in the queue and goes to the next
  live actor (at most `max_job_attempts` times, then the run stops with one line naming the job); the dead
  actor gets no work until Ray has restarted it and it answers a ping. The driver yields each job id once,
  so no job is written twice, and since it is the only writer the files are those of an uninterrupted run.
- **A wrong `--ray-address`.** `ray.init(address=...)` retries for minutes when nothing (or something that
  is not Ray) listens there. The address is first probed with a plain TCP connect, then by connecting from a
  child process that is killed after `connect_timeout_s`: a wrong address is one line within 30 s.
- **A killed driver.** A Ray instance started by `ray.init()` leaves its dashboard and runtime-env agents
  (about 225 MB, and they ignore SIGTERM) running when the driver is SIGKILLed. `LocalRayGuard` starts a
  small watchdog process that holds the read end of a pipe whose write end only the driver has; when the
  driver dies in any way the pipe closes and the watchdog SIGKILLs every process of that Ray instance
  (recorded with their start times, so a reused PID is never touched). `ray stop --force` is the manual
  cleanup for anything else.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from eval_kit.errors import BadInput

CONNECT_TIMEOUT_S = 20.0  # with the TCP check and start-up, a wrong address is one line within 30 s
TCP_TIMEOUT_S = 3.0


@dataclass
class RayRunStats:
    """What the Ray engine had to survive; filled while results are yielded."""

    lost_jobs: int = 0  # job attempts whose actor or node died (each was put back in the queue)
    actor_failures: int = 0  # pings that failed while an actor was being restarted
    lost_job_ids: list[str] = field(default_factory=list)


def _split_host_port(address: str) -> tuple[str, int] | None:
    """`host:port` of a Ray GCS address, or None for forms we do not probe over TCP (`auto`, `ray://`)."""
    if address in ("auto", "local") or "://" in address:
        return None
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise BadInput(f"--ray-address {address!r} is not HOST:PORT", field="--ray-address",
                       fix="give the head node's GCS address, e.g. 10.0.0.5:6379 (see `ray status`)")
    return host.strip("[]"), int(port)


def check_ray_address(address: str, *, connect_timeout_s: float = CONNECT_TIMEOUT_S,
                      python: str = sys.executable) -> None:
    """Raise BadInput (one line) unless a Ray cluster answers at `address` within about `connect_timeout_s`."""
    hostport = _split_host_port(address)
    fix = "start one with `ray start --head`, or give the address that `ray status` prints on the head node"
    if hostport is not None:
        try:
            with socket.create_connection(hostport, timeout=TCP_TIMEOUT_S):
                pass
        except OSError as exc:
            reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or type(exc).__name__)
            raise BadInput(f"no Ray cluster at --ray-address {address}: {reason}", field="--ray-address",
                           fix=fix) from None
    probe = ("import ray, sys\n"
             "ray.init(address=sys.argv[1], include_dashboard=False, log_to_driver=False, logging_level='ERROR')\n"
             "ray.shutdown()\n")
    proc = subprocess.Popen([python, "-c", probe, address], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=connect_timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise BadInput(f"no Ray cluster answered at --ray-address {address} within {connect_timeout_s:.0f} s "
                       "(a connection opens, but no Ray head node answers)", field="--ray-address",
                       fix=fix) from None
    if proc.returncode != 0:
        lines = [ln for ln in err.decode(errors="replace").splitlines() if ln.strip()]
        last = lines[-1][:200] if lines else f"exit status {proc.returncode}"
        raise BadInput(f"cannot connect to the Ray cluster at --ray-address {address}: {last}",
                       field="--ray-address", fix=fix)


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL a child started with start_new_session=True and everything in its process group."""
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


_WATCHDOG = r"""
import os, sys, time, signal
import psutil
procs = {}
for line in sys.stdin:
    pid, started = line.split()
    procs[int(pid)] = float(started)
# stdin closed: the driver ended (normally or killed). Give a clean ray.shutdown() a moment, then kill.
time.sleep(float(sys.argv[1]))
for pid, started in procs.items():
    try:
        p = psutil.Process(pid)
        if abs(p.create_time() - started) < 0.01:
            p.kill()
    except psutil.Error:
        pass
"""


class LocalRayGuard:
    """Ends every process of a Ray instance this driver started, when the driver ends in any way."""

    def __init__(self, grace_s: float = 2.0) -> None:
        self._proc = subprocess.Popen([sys.executable, "-c", _WATCHDOG, str(grace_s)], stdin=subprocess.PIPE,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                                      text=True, bufsize=1)
        self._known: set[int] = set()

    def record_children(self) -> int:
        """Tell the watchdog about this process's descendants (Ray's daemons, agents, workers); return their count."""
        import psutil

        n = 0
        for child in psutil.Process().children(recursive=True):
            if child.pid in self._known or child.pid == self._proc.pid:
                continue
            try:
                started = child.create_time()
            except psutil.Error:
                continue
            self._known.add(child.pid)
            assert self._proc.stdin is not None
            self._proc.stdin.write(f"{child.pid} {started}\n")
            n += 1
        return n

    @property
    def pid(self) -> int:
        return self._proc.pid

    def close(self) -> None:
        """After ray.shutdown(): close the pipe; the watchdog kills what shutdown left and exits."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            self._proc.stdin.close()


def _system_errors() -> tuple[type[BaseException], ...]:
    """Ray's errors that mean "the worker or its node went away", as opposed to an error in our code."""
    from ray import exceptions as rex

    names = ("RayActorError", "ActorDiedError", "ActorUnavailableError", "WorkerCrashedError", "NodeDiedError",
             "ObjectLostError", "OwnerDiedError", "ObjectReconstructionFailedError", "LocalRayletDiedError")
    return tuple(getattr(rex, n) for n in names if isinstance(getattr(rex, n, None), type))


class _Actor:
    """One editor and checker per actor (built once: loading a diffusion model takes minutes)."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.worker = factory()

    def ready(self) -> bool:
        return True

    def process(self, job: dict[str, Any]) -> Any:
        return self.worker.process(job).encoded()  # encode in the actor: image bytes travel, not pixels


def ray_results(pending: list[dict[str, Any]], worker_factory: Callable[[], Any], *, address: str | None,
                num_workers: int, gpus_per_worker: float, stats: RayRunStats | None = None,
                max_job_attempts: int = 4, max_actor_restarts: int = 4,
                restart_wait_s: float = 600.0, check_address: bool = True) -> Iterable[Any]:
    """Yield one JobResult per pending job as Ray actors finish them, surviving lost actors and nodes.

    `restart_wait_s`: how long the run waits, with work left and no live actor, for Ray to restart one
    (a cluster that lost every node with room for an actor) before it stops with one line."""
    import ray

    stats = stats if stats is not None else RayRunStats()
    started_here = not ray.is_initialized()
    guard: LocalRayGuard | None = None
    if started_here:
        if address and check_address:
            check_ray_address(address)
        else:
            guard = LocalRayGuard()
        # no address: always a new local instance ("local"); a bare ray.init() would join any cluster another
        # process on this machine started (it finds it through /tmp/ray), and then refuses num_cpus
        ray.init(address=address or "local", include_dashboard=False, log_to_driver=False,
                 **({} if address else {"num_cpus": max(num_workers, 1)}))
        if guard is not None:
            guard.record_children()
    lost = _system_errors()
    try:
        actor_cls = ray.remote(num_gpus=gpus_per_worker, num_cpus=1, max_restarts=max_actor_restarts,
                               max_task_retries=0)(_Actor)
        actors = [actor_cls.remote(worker_factory) for _ in range(min(num_workers, max(len(pending), 1)))]
        queue = deque(pending)
        attempts: dict[str, int] = {}
        emitted: set[str] = set()
        idle: deque = deque()
        jobs_in_flight: dict[Any, tuple[Any, dict[str, Any]]] = {}
        pings: dict[Any, Any] = {actor.ready.remote(): actor for actor in actors}
        retry_pings: list[tuple[float, Any]] = []  # (when, actor): ask a restarting actor again later
        waiting_since: float | None = None
        while queue or jobs_in_flight:
            now = time.monotonic()
            for when, actor in [r for r in retry_pings if r[0] <= now]:
                retry_pings.remove((when, actor))
                pings[actor.ready.remote()] = actor
            while queue and idle:
                actor, job = idle.popleft(), queue.popleft()
                jobs_in_flight[actor.process.remote(job)] = (actor, job)
            if guard is not None:
                guard.record_children()  # actors started since: their workers are ours to end too
            refs = [*jobs_in_flight, *pings]
            timeout = min([5.0] + [max(0.05, when - now) for when, _ in retry_pings])
            ready, _ = ray.wait(refs, num_returns=1, timeout=timeout) if refs else ([], [])
            if not refs and not retry_pings:
                raise RuntimeError("every Ray actor failed to start or restart; see the Ray logs")
            if not ready:
                if jobs_in_flight:
                    waiting_since = None
                    continue
                waiting_since = waiting_since or time.monotonic()
                if time.monotonic() - waiting_since > restart_wait_s:
                    raise RuntimeError(f"{len(queue)} jobs left and no Ray actor alive for {restart_wait_s:.0f} s "
                                       "(the cluster lost every node with room for one)")
                if not refs:
                    time.sleep(timeout)
                continue
            ref = ready[0]
            if ref in pings:
                actor = pings.pop(ref)
                try:
                    ray.get(ref)
                except lost:
                    stats.actor_failures += 1
                    retry_pings.append((time.monotonic() + 1.0, actor))  # Ray restarts it (max_restarts)
                    continue
                waiting_since = None
                idle.append(actor)
                continue
            actor, job = jobs_in_flight.pop(ref)
            try:
                result = ray.get(ref)
            except lost as exc:
                job_id = job["job_id"]
                attempts[job_id] = attempts.get(job_id, 0) + 1
                stats.lost_jobs += 1
                stats.lost_job_ids.append(job_id)
                if attempts[job_id] >= max_job_attempts:
                    raise RuntimeError(f"job {job_id} lost its Ray worker {attempts[job_id]} times "
                                       f"(last: {type(exc).__name__})") from None
                queue.appendleft(job)  # to the next live actor
                pings[actor.ready.remote()] = actor  # this one works again once restarted
                continue
            idle.append(actor)
            if result.job_id not in emitted:
                emitted.add(result.job_id)
                yield result
    finally:
        if started_here:
            ray.shutdown()
        if guard is not None:
            guard.close()
