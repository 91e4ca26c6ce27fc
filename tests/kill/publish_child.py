"""Child process of tests/test_publish_kill.py: publish MovSafeBench records into a folder, saying when it starts.

With `--checkpoints`, the child stops at every step of the publish that changes the disk (each `os.replace` of
a written file, and just before and just after the swap of the stage folder with the dataset folder), prints
`at N LABEL` and waits for the parent: a line `go` lets it go on, a SIGKILL ends it exactly there. So the kills
follow the child's own progress, not the clock: however loaded the machine, kill N lands at step N.
"""

from __future__ import annotations

import os
import re
import sys

from builder.movsafebench.publisher import movsafebench_rows_from_records
from builder.publish import transaction
from builder.publish.pipeline import publish
from tests.publish_fixtures import demo_records

folder, version, per_scenario = sys.argv[1], sys.argv[2], int(sys.argv[3])
step = 0


def checkpoint(label: str) -> None:
    global step
    step += 1
    print(f"at {step} {label}", flush=True)
    if sys.stdin.readline().strip() != "go":
        os._exit(3)  # the parent went away


if "--checkpoints" in sys.argv:
    real_replace, real_swap = os.replace, transaction.swap_in

    def replace(src, dst, *args, **kwargs):
        # no PIDs or random tokens in the label: the same steps have the same labels in every run
        name = re.sub(r"[0-9a-f]{16}", "X", os.path.basename(os.fspath(dst)))
        checkpoint(f"replace {re.sub(r'[0-9]+', 'N', name)}")
        return real_replace(src, dst, *args, **kwargs)

    def swap_in(stage, repo_dir):
        checkpoint("before swap")
        real_swap(stage, repo_dir)
        checkpoint("after swap")

    os.replace = replace
    transaction.swap_in = swap_in

rows = list(movsafebench_rows_from_records(demo_records(per_scenario=per_scenario, seed=per_scenario)))
print("ready", flush=True)
publish("movsafebench", version=version, config="default", rows=rows, out=folder, date="2026-12-01",
        allowed_sources=("sa_bench",))
print("done", flush=True)
