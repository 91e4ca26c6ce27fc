"""Child process of tests/test_publish_kill.py: publish MovSafeBench records into a folder, saying when it starts."""

from __future__ import annotations

import sys

from builder.movsafebench.publisher import movsafebench_rows_from_records
from builder.publish.pipeline import publish
from tests.publish_fixtures import demo_records

folder, version, per_scenario = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(movsafebench_rows_from_records(demo_records(per_scenario=per_scenario, seed=per_scenario)))
print("ready", flush=True)
publish("movsafebench", version=version, config="default", rows=rows, out=folder, date="2026-12-01",
        allowed_sources=("sa_bench",))
print("done", flush=True)
