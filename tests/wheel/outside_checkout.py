"""Run by tests/test_wheel_install.py with the python of a fresh venv that has only the hazardkit wheel (plus
its dependencies): every user command of the eval kit, from a folder outside the checkout.

argv: WORKDIR SAFERELBENCH_SAMPLES BD_ANNOTATIONS. Prints one JSON line of what it found; exits non-zero on any
failure.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

work, saferel_samples, bd_annotations = (Path(a) for a in sys.argv[1:4])
hazardkit = str(Path(sys.executable).parent / "hazardkit")
found: dict = {}


def hk(*args: object) -> str:
    result = subprocess.run([hazardkit, *map(str, args)], cwd=work, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"hazardkit {' '.join(map(str, args))} exited {result.returncode}: {result.stderr[-2000:]}")
    return result.stdout


import eval_kit  # noqa: E402

found["eval_kit"] = eval_kit.__file__
from eval_kit import registry  # noqa: E402
from eval_kit.testing.synthetic_datasets import write_parquet_folder  # noqa: E402

# MovSafeBench: a dataset folder given by path
write_parquet_folder(work / "msb", 30)
hk("eval", "movsafebench", "--backend", "baseline", "--model", "majority", "--data", "msb", "--config", "demo",
   "--out", "run-msb", "--no-progress")
found["msb_run"] = json.loads(hk("score", "run", "run-msb", "--json"))["accuracy"]
found["msb_score"] = json.loads(hk("score", "movsafebench", "-r", "msb", "--config", "demo", "-p",
                                   "run-msb/predictions.jsonl", "--json"))["accuracy"]
found["msb_validate"] = hk("validate", "movsafebench", "-r", "msb", "--config", "demo", "-p",
                           "run-msb/predictions.jsonl").strip()

# SafeRelBench: samples JSON Lines given by path
shutil.copy(saferel_samples, work / "samples.jsonl")
hk("eval", "saferelbench", "--backend", "baseline", "--model", "fixed:reference", "--data", "samples.jsonl",
   "--out", "run-srb", "--no-progress")
found["srb_run"] = json.loads(hk("score", "run", "run-srb", "--json"))["SSR"]
found["srb_validate"] = hk("validate", "saferelbench", "-r", "samples.jsonl", "-p", "run-srb/predictions.jsonl").strip()

# BD-HazardVLM: annotations given by path, a perfect submission
shutil.copy(bd_annotations, work / "annotations.jsonl")
refs = [json.loads(x) for x in (work / "annotations.jsonl").read_text().splitlines() if x.strip()]
fields = ("hazard_present", "primary_hazard_category", "risk_timing", "severity", "defensive_actions", "evidence")
(work / "bd.jsonl").write_text("".join(json.dumps({"id": r["id"], "prediction": {
    **{f: r[f] for f in fields}, "possible_hallucination": r["hallucination_trap"],
    "possible_western_road_bias": r["western_bias_trap"]}}) + "\n" for r in refs))
found["bd_score"] = json.loads(hk("score", "bd-hazardvlm", "--references", "annotations.jsonl", "--predictions",
                                  "bd.jsonl", "--json"))["category"]["accuracy"]
found["bd_validate"] = hk("validate", "bd-hazardvlm", "-r", "annotations.jsonl", "-p", "bd.jsonl").strip()

# the leaderboard
hk("leaderboard", "add", "run-msb/scores.json", "run-srb/scores.json", "--table", "lb/results.parquet")
hk("leaderboard", "render", "--table", "lb/results.parquet", "--out", "lb")
found["leaderboard"] = (work / "lb" / "index.html").is_file()

# every evaluate module, from the installed package
import evaluate  # noqa: E402

found["metrics"] = {}
for bench in registry.benchmarks():
    path = bench.metric_path()
    module = evaluate.load(str(path))
    found["metrics"][bench.name] = {"path": str(path), "name": module.name}
msb = evaluate.load(str(registry.get("movsafebench").metric_path()))
found["msb_metric"] = msb.compute(predictions=["left", "right"], references=["left", "left"],
                                  scenarios=["static", "static"], categories=["dog", "dog"],
                                  source_benchmarks=["drivebench", "drivebench"], source_ids=["a", "b"])["accuracy"]
print(json.dumps(found))
