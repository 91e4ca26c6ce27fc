"""Upload to new row: a 7,254-row MovSafeBench submission through the leaderboard app, in a real browser.

Serves the Space's own app.py (written by `hazardkit leaderboard space`) on 127.0.0.1 with synthetic
references (paper table 2's 7,254 edited images, from eval_kit.testing), then with Playwright + Chromium:
chooses the file, presses Submit and times
  (a) upload -> the app's answer with the scores and the row it adds (Submit tab),
  (b) upload -> the new row in the MovSafeBench tab's ranking table,
against the baseline measured in the same run: the CLI's `validate` + `score run` library calls on the same
files in one process (what the app runs, without the browser, upload and page update). Target: (b) < 3 s.

    .venv/bin/python benchmarks/leaderboard_app_speed.py [--repeats 3] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from eval_kit.movsafebench import spec  # noqa: E402
from eval_kit.testing.synthetic_references import table2_references  # noqa: E402


def write_files(tmp: Path, n_models: int) -> tuple[Path, list[Path]]:
    """References (the 7,254 edited images of table 2) and n submissions: half labels, half raw text."""
    edited = [r for r in table2_references(seed=0) if r["scenario"] != "no_edit"]
    refs = tmp / "references.jsonl"
    refs.write_text("".join(json.dumps(r) + "\n" for r in edited))
    submissions = []
    for k in range(n_models):
        rng = np.random.default_rng(k)
        lines = []
        for i, r in enumerate(edited):
            answer = r["answer"] if rng.random() < 0.4 + 0.1 * k else spec.ANSWERS[int(rng.integers(0, 3))]
            lines.append({"id": r["id"], "prediction": answer} if i % 2 else
                         {"id": r["id"], "response": f"The truck blocks the lane, so: go {answer}."})
        path = tmp / f"model_{k}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        submissions.append(path)
    return refs, submissions


def baseline(refs: Path, predictions: Path) -> float:
    """The library calls the app makes, in-process, without browser or upload: validate + score_run."""
    from eval_kit import registry
    from eval_kit.leaderboard.checker import checker_for
    from eval_kit.leaderboard.validate import validate_submission

    start = time.perf_counter()
    problems, _ = validate_submission(checker_for("movsafebench"), refs, predictions)
    assert not problems, problems[:3]
    task = registry.make_task("movsafebench", data=refs)
    registry.get("movsafebench").part("score_run")(task, predictions)
    return time.perf_counter() - start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = parser.parse_args()
    if not args.chromium:
        sys.exit("no Chromium found: apt-get install chromium (or pass --chromium PATH)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        refs, submissions = write_files(tmp, args.repeats + 1)
        base = [baseline(refs, p) for p in submissions[: args.repeats]]
        space = tmp / "space"
        subprocess.run([str(Path(sys.executable).parent / "hazardkit"), "leaderboard", "space", "--out", str(space)],
                       check=True, capture_output=True)
        port = free_port()
        env = {**os.environ, "HAZARDKIT_SPACE_DIR": str(tmp / "data"), "HAZARDKIT_REFERENCES": f"movsafebench={refs}",
               "HAZARDKIT_DAILY_LIMIT": "1000", "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
               "GRADIO_ANALYTICS_ENABLED": "False", "MPLBACKEND": "Agg"}
        env.pop("SPACE_ID", None)
        server = subprocess.Popen([sys.executable, "app.py"], cwd=space, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}/"
        try:
            for _ in range(180):
                try:
                    urllib.request.urlopen(url, timeout=2)
                    break
                except OSError:
                    time.sleep(0.5)
            answer_times, row_times = [], []
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(60_000)
                page.goto(url)
                page.get_by_role("tab", name="Submit").wait_for()
                # one warm-up submission (first plot render, first Gradio event), then the timed ones
                for k, path in enumerate(submissions):
                    page.goto(url)  # a fresh page per submission (not timed)
                    page.wait_for_selector("#tab-movsafebench", state="attached")
                    page.wait_for_timeout(1000)
                    page.get_by_role("tab", name="Submit").click()
                    page.fill("#submit-model textarea, #submit-model input", f"model-{k}")
                    before = page.input_value("#submit-result textarea")
                    rows_before = page.locator("#tab-movsafebench [role=gridcell][data-col='1']").count()
                    start = time.perf_counter()
                    page.set_input_files("#submit-file input[type=file]", str(path))
                    page.wait_for_selector(f"#submit-file :text('{path.name}')")
                    page.click("#submit-button")
                    page.wait_for_function("([s, old]) => { const t = document.querySelector(s); return t && t.value "
                                           "&& t.value !== old; }", arg=["#submit-result textarea", before])
                    answered = time.perf_counter() - start
                    text = page.input_value("#submit-result textarea")
                    assert text.startswith("ok: 7254 predictions"), text
                    page.get_by_role("tab", name="MovSafeBench").click()
                    page.wait_for_function("n => document.querySelectorAll(\"#tab-movsafebench [role=gridcell]"
                                           "[data-col='1']\").length > n", arg=rows_before)
                    shown = time.perf_counter() - start
                    if k:
                        answer_times.append(answered)
                        row_times.append(shown)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"7,254-row MovSafeBench submission, {args.repeats} timed runs (after one warm-up):")
    print(f"  baseline (validate + score_run in-process): median {np.median(base):.2f} s")
    print(f"  app, upload -> scores and row in Submit tab: median {np.median(answer_times):.2f} s "
          f"(max {max(answer_times):.2f} s, {np.median(answer_times) / np.median(base):.2f}x baseline)")
    print(f"  app, upload -> new row in the ranking table: median {np.median(row_times):.2f} s "
          f"(max {max(row_times):.2f} s, {np.median(row_times) / np.median(base):.2f}x baseline); target < 3 s")


if __name__ == "__main__":
    main()
