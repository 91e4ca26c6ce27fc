"""What `hazardkit leaderboard serve` checks before it listens, so the operator, not the first submitter, learns
of a problem: the address and port can be bound, the data folder is writable, the results table is readable,
and every benchmark's references load (an `hf://` repo that cannot be fetched, a missing folder, a config
that is not there). Each problem is one BadInput line (the CLI exits 2).
"""

from __future__ import annotations

import errno
import socket
import tempfile

from eval_kit.errors import BadInput
from eval_kit.leaderboard.space.pipeline import Leaderboard
from eval_kit.leaderboard.space.settings import SpaceSettings


def check_port(host: str, port: int) -> None:
    """BadInput when nothing can listen on host:port (in use, not an address of this machine, no permission).
    The socket is bound as the server binds it (SO_REUSEADDR) and closed at once."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise BadInput(f"cannot resolve host {host!r} ({exc.strerror})", field="--host",
                       fix="pass an address of this machine, e.g. 127.0.0.1 or 0.0.0.0") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise BadInput(f"port {port} on {host} is already in use", field="--port",
                               fix="stop the other server or pass --port with a free port") from None
            raise BadInput(f"cannot listen on {host}:{port} ({exc.strerror})", field="--port",
                           fix="pass --host 127.0.0.1 and a port above 1023") from None


def check_storage(settings: SpaceSettings) -> None:
    """The data folder can be written and the results table (if any) read."""
    from eval_kit.leaderboard.results import read_table

    folder = settings.data_dir
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise BadInput(f"the app's data folder is not writable ({exc.strerror})", path=folder,
                       field="HAZARDKIT_SPACE_DIR", fix="pass --space-dir with a folder you can write") from None
    read_table(settings.table)  # BadInput naming the table when it is not a readable results table


def preflight(settings: SpaceSettings, host: str, port: int) -> Leaderboard:
    """Every check, cheapest first; returns the Leaderboard with its references loaded (and its scoring
    worker started), ready to serve."""
    check_port(host, port)
    check_storage(settings)
    lb = Leaderboard(settings)
    lb.warm()  # each benchmark's references: ids and revision (BadInput naming the reference when unusable)
    return lb
