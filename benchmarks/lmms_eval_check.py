"""Run the exported tasks in lmms-eval 0.7.3 itself (its `dummy` model, no weights) and compare its numbers with
`hazardkit score --from-lmms-eval` on its samples log. Not part of `make test`: `make lmms-eval-check`.

    .venv/bin/python benchmarks/lmms_eval_check.py [--venv .lmms-venv] [--quick]

`--quick` (what CI runs) never installs anything: it exports the three tasks and checks their files, and runs
lmms-eval on the MovSafeBench task only when the venv already exists (it says which it did).

lmms-eval is installed into a SEPARATE throwaway venv (default `.lmms-venv/`, git-ignored): its own
requirements pull a CUDA torch build (torchvision>=0.16 -> torch 2.14.1, about 7 GB), so the venv gets
`pip install --no-deps lmms-eval==0.7.3` plus the few small packages it imports, and sees hazardkit's `.venv`
(CPU torch, datasets, transformers, hazardkit itself) through a `.pth` file. Offline: HF_HUB_OFFLINE=1, the
tasks read local Parquet. lmms-eval exits 0 even when evaluation fails, so the results file is checked.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LMMS = "lmms-eval==0.7.3"
SMALL_DEPS = ["sacrebleu", "pytablewriter", "sqlitedict", "loguru", "tenacity", "jsonlines", "numexpr", "zss",
              "filelock<4"]  # filelock 4 lacks filelock._api, which lmms-eval 0.7.3 imports
# (task, the dummy model's fixed response, benchmark, lmms-eval metric -> key path in `hazardkit score --json`)
CHECKS = [
    ("hazardkit_movsafebench", "The answer is C.", "movsafebench", {"movsafebench_accuracy": ("accuracy",)}),
    ("hazardkit_bd_hazardvlm", '{"primary_hazard_category": "rickshaw_easybike"}', "bd-hazardvlm",
     {"bd_category_accuracy": ("category", "accuracy"), "bd_category_macro_f1": ("category", "macro_f1"),
      "bd_schema_valid_rate": ("schema", "valid_rate")}),
    ("hazardkit_saferelbench", "NAVIGATE_TO(desk.n.01_1)", "saferelbench",
     {"saferelbench_ssr": ("plans", "SSR"), "saferelbench_sr": ("plans", "SR")}),
]


def ensure_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if python.exists() and subprocess.run([python, "-c", "import lmms_eval"], capture_output=True).returncode == 0:
        return python
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    ours = subprocess.run([sys.executable, "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    Path(site, "hazardkit_venv.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "--no-deps", LMMS], check=True)
    subprocess.run([*pip, *SMALL_DEPS], check=True)
    return python


def build_data(work: Path) -> dict[str, Path]:
    import datasets

    from eval_kit.saferelbench import spec
    from eval_kit.saferelbench.samples import sample_to_row
    from eval_kit.testing.synthetic_datasets import write_parquet_folder

    mov = write_parquet_folder(work / "movsafebench", 60, seed=7)
    subprocess.run([ROOT / ".venv" / "bin" / "hazardkit", "reconstruct", "bd-hazardvlm", "--demo", "--out",
                    work / "bd"], check=True, cwd=ROOT, capture_output=True)
    samples = [json.loads(x) for x in (ROOT / "manifests" / "saferelbench" / "demo.jsonl").read_text().splitlines()
               if x.strip()]
    srb = work / "saferelbench.parquet"
    datasets.Dataset.from_list([sample_to_row(s) for s in samples], features=spec.features()).to_parquet(str(srb))
    return {"movsafebench": mov, "bd-hazardvlm": work / "bd", "saferelbench": srb}


def export_only() -> int:
    """--quick without an lmms-eval venv: export the tasks and check that each has its YAML and utils."""
    hazardkit = Path(sys.executable).parent / "hazardkit"
    with tempfile.TemporaryDirectory(prefix="hazardkit-lmms-check-") as tmp:
        work = Path(tmp)
        data = build_data(work)
        start = time.perf_counter()
        subprocess.run([hazardkit, "export", "lmms-eval", "--out", work / "tasks",
                        *[x for name, path in data.items() for x in ("--data", f"{name}={path}")]], check=True,
                       capture_output=True)
        seconds = time.perf_counter() - start
        missing = [task for task, *_ in CHECKS if not (work / "tasks" / task / f"{task}.yaml").is_file()
                   or not (work / "tasks" / task / "utils.py").is_file()]
    print(f"lmms-eval venv absent: --quick exported {len(CHECKS) - len(missing)} of {len(CHECKS)} tasks in "
          f"{seconds:.1f} s and did not run lmms-eval (make lmms-eval-check does)")
    return 1 if missing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".lmms-venv")
    parser.add_argument("--quick", action="store_true",
                        help="no install: export and check the task files; lmms-eval on one task if its venv exists")
    args = parser.parse_args()
    checks = CHECKS
    if args.quick:
        ready = (args.venv / "bin" / "python").exists() and subprocess.run(
            [args.venv / "bin" / "python", "-c", "import lmms_eval"], capture_output=True).returncode == 0
        if not ready:
            return export_only()
        checks = CHECKS[:1]
    python = ensure_venv(args.venv)
    hazardkit = ROOT / ".venv" / "bin" / "hazardkit"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    failures = 0
    with tempfile.TemporaryDirectory(prefix="hazardkit-lmms-check-") as tmp:
        work = Path(tmp)
        env["HF_HOME"] = str(work / "hf")
        data = build_data(work)
        subprocess.run([hazardkit, "export", "lmms-eval", "--out", work / "tasks",
                        *[x for name, path in data.items() for x in ("--data", f"{name}={path}")]], check=True)
        print(f"{'task':24s} {'metric':22s} {'lmms-eval':>10s} {'hazardkit':>10s}  stderr(clustered)  seconds")
        for task, response, bench, metrics in checks:
            out = work / f"out-{task}"
            start = time.perf_counter()
            run = subprocess.run([python, "-m", "lmms_eval", "eval", "--model", "dummy", "--model_args",
                                  f"response={response}", "--tasks", task, "--include_path", work / "tasks",
                                  "--log_samples", "--output_path", out, "--batch_size", "8"],
                                 env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            results = sorted(out.rglob("*_results.json"))
            logs = sorted(out.rglob(f"*_samples_{task}.jsonl"))
            if not results or not logs:  # lmms-eval exits 0 when the evaluation failed
                print(f"{task}: lmms-eval wrote no results (exit {run.returncode}):\n{run.stdout[-2000:]}"
                      f"{run.stderr[-3000:]}")
                failures += 1
                continue
            ours_args = ["--samples" if bench == "saferelbench" else "--references", data[bench]]
            if bench != "saferelbench":
                ours_args += ["--config", "demo"]
            ours = json.loads(subprocess.run([hazardkit, "score", bench, *ours_args, "--from-lmms-eval", logs[0],
                                              "--json"], check=True, capture_output=True, text=True).stdout)
            theirs = json.loads(results[0].read_text())["results"][task]
            for metric, path in metrics.items():
                value = ours
                for key in path:
                    value = value[key]
                got = theirs[f"{metric},none"]
                clustered = theirs.get(f"{metric}_stderr_clustered,none")
                same = abs(got - value) < 1e-9
                failures += not same
                print(f"{task:24s} {metric:22s} {got:10.4f} {value:10.4f}  {clustered!s:>17.8s}  {seconds:7.1f}"
                      f"{'' if same else '  MISMATCH'}")
    print("ok" if not failures else f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
