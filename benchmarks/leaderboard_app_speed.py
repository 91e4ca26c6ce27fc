"""Leaderboard app speed: a change with many rows, and upload to new row in a real browser.

Part 1, a change updates only what it changes: a results table of --rows MovSafeBench rows (default 200,
each with 7,254 per-sample outcomes); one more row is added as the app adds a submission, and the app's
views (`space.views.Views`: re-read the table, rebuild what changed, the benchmark tab's and the
overview's HTML) are timed per change. Baselines in the same run: the same views built from scratch
(nothing cached), and the pre-issue-24 algorithm (every model in every plot and in one all-pairs
significance matrix: `build(..., top=rows)`). Target: under 2 s per change with 200 rows.

Part 2, upload to new row: a 7,254-row MovSafeBench submission through the leaderboard app, in a real browser.

Serves the Space's own app.py (written by `hazardkit leaderboard space`) on 127.0.0.1 with synthetic
references (paper table 2's 7,254 edited images, from eval_kit.testing), then with Playwright + Chromium:
chooses the file, presses Submit and times
  (a) upload -> the app's answer with the scores and the row it adds (Submit tab),
  (b) upload -> the new row in the MovSafeBench tab's ranking table,
against the baseline measured in the same run: the CLI's `validate` + `score run` library calls on the same
files in one process (what the app runs, without the browser, upload and page update). Target: (b) < 3 s.

    .venv/bin/python benchmarks/leaderboard_app_speed.py [--repeats 3] [--rows 200] [--chromium /usr/bin/chromium]
    .venv/bin/python benchmarks/leaderboard_app_speed.py --quick   # 20 rows, 1,000-row submission, 1 timed run
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
from eval_kit.testing.gradio_upload import set_file  # noqa: E402
from eval_kit.testing.synthetic_references import table2_references  # noqa: E402


def write_files(tmp: Path, n_models: int, n_rows: int | None = None) -> tuple[Path, list[Path]]:
    """References (the 7,254 edited images of table 2, or the first n_rows) and n submissions: half labels,
    half raw text."""
    edited = [r for r in table2_references(seed=0) if r["scenario"] != "no_edit"][:n_rows]
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


def change_speed(tmp: Path, refs: Path, predictions: Path, n_rows: int, changes: int) -> None:
    """Part 1: seconds per change of the app's views with n_rows rows, against two baselines."""
    import dataclasses
    import json as json_

    from eval_kit import registry
    from eval_kit.leaderboard.render import build
    from eval_kit.leaderboard.results import add_results, read_table, result_row, write_table
    from eval_kit.leaderboard.space.pipeline import Leaderboard
    from eval_kit.leaderboard.space.settings import SpaceSettings, parse_references
    from eval_kit.leaderboard.space.views import Views

    task = registry.make_task("movsafebench", data=refs)
    base = registry.get("movsafebench").part("score_run")(task, predictions, n_bootstrap=50)
    rng = np.random.default_rng(0)

    def row(i: int) -> dict:
        res = json_.loads(json_.dumps(base))
        correct = res["per_sample"]["correct"]
        flip = rng.random(len(correct)) < 0.3
        res["per_sample"]["correct"] = [bool(c) ^ bool(f) for c, f in zip(correct, flip, strict=True)]
        res["accuracy"] = float(np.mean(res["per_sample"]["correct"]))
        res["ci95"] = [res["accuracy"] - 0.01, res["accuracy"] + 0.01]
        return result_row(res, source="bench", model=f"model-{i:03d}", run=f"run-{i:03d}", config="default",
                          revision="sha256:bench", backend="vllm")

    data = tmp / "change"
    settings = SpaceSettings(data_dir=data, references=parse_references(f"movsafebench={refs}"))
    rows = [row(i) for i in range(n_rows)]
    write_table(settings.table, rows)
    lb = Leaderboard(dataclasses.replace(settings))

    def show(views: Views) -> None:
        views.refresh()
        version = views.versions("movsafebench")[0][0]
        views.board_html("movsafebench", version)
        views.overview_html(["movsafebench"], {"movsafebench": version})

    start = time.perf_counter()
    old = build(read_table(settings.table), tmp / "old_site", top=n_rows)
    old_s = time.perf_counter() - start
    assert len(old[0]["matrices"][0]["matrix"]["models"]) == n_rows
    views = Views(lb)
    start = time.perf_counter()
    show(views)
    cold = time.perf_counter() - start
    per_change, builds = [], []
    for k in range(changes):
        add_results(settings.table, [row(n_rows + k)])
        before = views.builds
        start = time.perf_counter()
        show(views)
        per_change.append(time.perf_counter() - start)
        builds.append(views.builds - before)
    print(f"A change with {n_rows} rows ({len(base['per_sample']['id'])} samples each), {changes} changes:")
    print(f"  baseline, pre-issue-24 algorithm (all {n_rows} models in plots and one all-pairs matrix): {old_s:.2f} s")
    print(f"  baseline, the app's views built from scratch (nothing cached): {cold:.2f} s")
    print(f"  app, per change (one row added; sections rebuilt per change: {sorted(set(builds))}): median "
          f"{np.median(per_change):.2f} s (max {max(per_change):.2f} s; {old_s / np.median(per_change):.1f}x faster "
          f"than the pre-issue-24 algorithm, {cold / np.median(per_change):.1f}x than from scratch); target < 2 s")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=200, help="rows in the table of part 1")
    parser.add_argument("--quick", action="store_true", help="20 rows, a 1,000-row submission, one timed run")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = parser.parse_args()
    n_refs = None
    if args.quick:
        args.repeats, args.rows, n_refs = 1, 20, 1000
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        refs, submissions = write_files(tmp, args.repeats + 1, n_refs)
        change_speed(tmp, refs, submissions[0], args.rows, 3 if args.quick else 5)
        if not args.chromium:
            if args.quick:
                print("part 2 skipped: no Chromium (apt-get install chromium)")
                return
            sys.exit("no Chromium found: apt-get install chromium (or pass --chromium PATH)")
        browser_speed(tmp, refs, submissions, args)


def browser_speed(tmp: Path, refs: Path, submissions: list[Path], args: argparse.Namespace) -> None:
    """Part 2: upload -> answer and upload -> row in the ranking, in Chromium."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    n_lines = sum(1 for _ in refs.open())
    base = [baseline(refs, p) for p in submissions[: args.repeats]]
    space = tmp / "space"
    subprocess.run([str(Path(sys.executable).parent / "hazardkit"), "leaderboard", "space", "--out", str(space)],
                   check=True, capture_output=True)
    port = free_port()
    env = {**os.environ, "HAZARDKIT_SPACE_DIR": str(tmp / "data"), "HAZARDKIT_REFERENCES": f"movsafebench={refs}",
           "HAZARDKIT_DAILY_LIMIT": "1000", "HAZARDKIT_SCORE_TIMEOUT": "300",  # timed here, never cut short
           "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "MPLBACKEND": "Agg"}
    env.pop("SPACE_ID", None)
    server = subprocess.Popen([sys.executable, "app.py"], cwd=space, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    rows_sel = "#board-movsafebench table.ranking tbody tr"
    try:
        deadline = time.monotonic() + 300  # a bound that fits a loaded machine (Gradio's start took > 90 s)
        while True:
            try:
                urllib.request.urlopen(url, timeout=5)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    sys.exit("the app did not start (run `hazardkit leaderboard space` and its app.py by hand)")
                time.sleep(0.5)
        answer_times, row_times = [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(120_000)  # a bound on each condition wait, for a loaded machine
            # one warm-up submission (first plot render, first Gradio event), then the timed ones
            for k, path in enumerate(submissions):
                page.goto(url)  # a fresh page per submission (not timed)
                page.wait_for_selector("#board-overview .hk-board", state="attached")
                rows_before = page.locator(rows_sel).count()
                page.get_by_role("tab", name="Submit").click()
                page.fill("#submit-model textarea, #submit-model input", f"model-{k}")
                before = page.input_value("#submit-result textarea")
                start = time.perf_counter()
                set_file(page, "#submit-file", path, PlaywrightTimeout)
                page.click("#submit-button")
                page.wait_for_function("([s, old]) => { const t = document.querySelector(s); return t && t.value "
                                       "&& t.value !== old; }", arg=["#submit-result textarea", before])
                answered = time.perf_counter() - start
                text = page.input_value("#submit-result textarea")
                assert text.startswith(f"ok: {n_lines} predictions"), text
                page.get_by_role("tab", name="MovSafeBench").click()
                page.wait_for_function("([s, n]) => document.querySelectorAll(s).length > n",
                                       arg=[rows_sel, rows_before])
                shown = time.perf_counter() - start
                if k:
                    answer_times.append(answered)
                    row_times.append(shown)
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a loaded machine: ended by its PID all the same
            server.kill()
            server.wait(timeout=30)
    print(f"{n_lines:,}-row MovSafeBench submission, {args.repeats} timed run(s) (after one warm-up):")
    print(f"  baseline (validate + score_run in-process): median {np.median(base):.2f} s")
    print(f"  app, upload -> scores and row in Submit tab: median {np.median(answer_times):.2f} s "
          f"(max {max(answer_times):.2f} s, {np.median(answer_times) / np.median(base):.2f}x baseline)")
    print(f"  app, upload -> new row in the ranking table: median {np.median(row_times):.2f} s "
          f"(max {max(row_times):.2f} s, {np.median(row_times) / np.median(base):.2f}x baseline); target < 3 s")


if __name__ == "__main__":
    main()
