"""Run every benchmark script and write one table of what each printed: `make bench` (full size) and CI (quick).

Each `benchmarks/*.py` script measures one thing against a baseline measured in the same run and prints its
figures (and their ratios) as lines of text. This runner starts each one in its own process, one after the
other (they time themselves: running two at once would spoil both), and writes a Markdown table: script,
exit code, seconds, and every line it printed that holds a figure. A script that fails is a row marked
FAILED with the end of its error, and the runner exits 1; nothing else stops the run.

    .venv/bin/python benchmarks/run_all.py [--quick] [--out benchmarks/results/bench.md] [--only NAME ...]

`--quick` passes `--quick` to every script: small sizes, seconds each, the same figures (not measurements).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SKIP = {"run_all.py"}  # this runner; helper modules start with "_"
NEEDS_GPU = {"gpu_smoke.py": "--cpu-check"}  # without an NVIDIA GPU: its CPU check, said so in the table
FIGURE = re.compile(r"\d")


def scripts() -> list[Path]:
    """Every benchmark script, in name order."""
    return sorted(p for p in HERE.glob("*.py") if p.name not in SKIP and not p.name.startswith("_"))


def _nvidia_gpu() -> bool:
    """Whether an NVIDIA GPU answers (`nvidia-smi -L` lists one)."""
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return listed.returncode == 0 and "GPU" in listed.stdout


def run(script: Path, quick: bool, timeout: float) -> dict[str, object]:
    """Run one script; return its row: name, exit code, seconds, figure lines (or the end of its error)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1"}
    flags = ["--quick"] if quick else []
    if not quick and script.name in NEEDS_GPU and not _nvidia_gpu():
        flags = [NEEDS_GPU[script.name]]
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(script), *flags], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code = "timeout"
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = f"killed after {timeout:.0f} s"
    seconds = time.perf_counter() - start
    figures = [line.strip() for line in out.splitlines() if line.strip() and FIGURE.search(line)]
    if flags and flags != ["--quick"]:
        figures.insert(0, f"(no NVIDIA GPU here: ran with {' '.join(flags)})")
    return {"script": script.name, "code": code, "seconds": seconds, "figures": figures,
            "error": "" if code == 0 else (err.strip().splitlines() or ["(no output)"])[-1]}


def table(rows: list[dict[str, object]], quick: bool) -> str:
    """The Markdown table of all rows (one line per printed figure)."""
    lines = [f"# hazardkit benchmarks ({'quick: smoke sizes, not measurements' if quick else 'full size'})", "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, load average "
             f"{os.getloadavg()[0]:.1f} at the end", "", "| script | exit | seconds | figures |", "|---|---|---:|---|"]
    for row in rows:
        status = "ok" if row["code"] == 0 else f"FAILED ({row['code']})"
        figures = list(row["figures"]) or ["(no figure printed)"]
        if row["code"] != 0:
            figures.append(f"error: {row['error']}")
        for i, figure in enumerate(figures):
            cell = str(figure).replace("|", "\\|")
            head = f"| {row['script']} | {status} | {row['seconds']:.1f} |" if i == 0 else "| | | |"
            lines.append(f"{head} {cell} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="pass --quick to every script (CI)")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the table here too (default: benchmarks/results/bench.md, or bench-quick.md)")
    parser.add_argument("--only", nargs="+", default=None, help="run only these scripts (names)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed per script")
    args = parser.parse_args()
    chosen = [s for s in scripts() if not args.only or s.name in args.only or s.stem in args.only]
    out = args.out or HERE / "results" / ("bench-quick.md" if args.quick else "bench.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    if not chosen:
        parser.error(f"no benchmark script named {' '.join(args.only or [])}")
    rows: list[dict[str, object]] = []
    text = ""
    for number, script in enumerate(chosen, start=1):
        print(f"[{number}/{len(chosen)}] {script.name} ...", file=sys.stderr, flush=True)
        rows.append(run(script, args.quick, args.timeout))
        text = table(rows, args.quick)  # after every script: a stopped run keeps the rows it measured
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_text(text)
        os.replace(tmp, out)
    print(text, end="")
    print(f"table written to {out}", file=sys.stderr)
    return 0 if all(row["code"] == 0 for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
