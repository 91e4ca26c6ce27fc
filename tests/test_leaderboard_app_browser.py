"""The leaderboard app in a real browser: Playwright drives Debian's Chromium against the Space's own app.py,
served on 127.0.0.1 with its settings from the environment, exactly as on the Hub.

Load the page, switch tabs, sort a column, upload a valid submission and see its row, upload a malformed one
and see the one-line error, hit the size limit, and check that markup in a model name stays text.
Screenshots of every tab go to $HAZARDKIT_SCREENSHOTS (default: the test's temporary folder). Skips only
when Chromium is not installed and cannot be installed with apt-get (.ci/run installs it); Gradio and
Playwright are in the `dev` extra that `make test` installs.
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import gradio  # noqa: F401  (the dev extra installs Gradio and Playwright: a missing one is an error, not a skip)
import pytest
from playwright import sync_api

from tests.cli_helpers import hk
from tests.test_leaderboard_page import chromium  # noqa: F401  (fixture: finds or installs Chromium)
from tests.test_leaderboard_space import predictions

ROOT = Path(__file__).resolve().parents[1]
LIMIT_BYTES = 20 * 1024  # the test references' predictions are ~3 KB
TIMEOUT_MS = 30_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("HAZARDKIT_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The Space folder written by `hazardkit leaderboard space`, its app.py run as a Space runs it."""
    from eval_kit.leaderboard.space.pipeline import Leaderboard
    from eval_kit.leaderboard.space.settings import SpaceSettings

    tmp = tmp_path_factory.mktemp("app")
    refs = tmp / "references.jsonl"
    _write_refs(refs)
    data = tmp / "data"
    sr_samples = ROOT / "manifests" / "saferelbench" / "demo.jsonl"
    env_refs = f"movsafebench={refs}; saferelbench={sr_samples}"
    # three earlier submissions, so the ranking has rows to sort; SafeRelBench demo baselines beside them
    lb = Leaderboard(SpaceSettings.from_env({"HAZARDKIT_SPACE_DIR": str(data), "HAZARDKIT_REFERENCES": env_refs,
                                             "HAZARDKIT_DAILY_LIMIT": "100", "HAZARDKIT_SCORE_TIMEOUT": "0"}))
    for k, name in ((2, "alpha-vl"), (3, "beta-vl"), (5, "gamma-vl")):
        outcome = lb.submit(predictions(refs, tmp / f"{name}.jsonl", right_every=k), f"{name}.jsonl",
                            "movsafebench", name, "https://example.org/" + name, "vllm", user=f"seed-{k}")
        assert outcome.status == "published", outcome.lines
    runs = []
    for plan in ("reference", "unmitigated"):
        out = tmp / "runs" / plan
        hk("eval", "saferelbench", "-m", f"fixed:{plan}", "-b", "baseline", "--data", sr_samples, "--out", out,
           "--no-progress")
        hk("score", "run", out)
        runs.append(out / "scores.json")
    hk("leaderboard", "add", *runs, "--table", data / "results.parquet")
    space = tmp / "space"
    hk("leaderboard", "space", "--out", space)
    port = free_port()
    env = {**os.environ, "HAZARDKIT_SPACE_DIR": str(data), "HAZARDKIT_REFERENCES": env_refs,
           "HAZARDKIT_MAX_UPLOAD_MB": str(LIMIT_BYTES / 2**20), "HAZARDKIT_DAILY_LIMIT": "100",
           "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False",
           "HF_HUB_OFFLINE": "1", "MPLBACKEND": "Agg"}
    env.pop("SPACE_ID", None)
    log = (tmp / "app.log").open("w")
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=space, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"app.py did not start: {(tmp / 'app.log').read_text()[-3000:]}")
        time.sleep(0.5)
    yield {"url": url, "refs": refs, "tmp": tmp, "data": data}
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def _write_refs(path: Path) -> None:
    from eval_kit.testing.synthetic_datasets import rows

    lines = [{"id": f"ms-{i:04d}", "answer": r["answer"], "scenario": r["scenario"], "category": r["category"],
              "source_benchmark": r["source_benchmark"], "source_id": r["source_id"]}
             for i, r in enumerate(rows(60, seed=3))]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.fixture(scope="module")
def browser(chromium):  # noqa: F811
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def page(browser, app):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app["url"])
    page.wait_for_selector("#tab-movsafebench .ranking [data-testid='cell-0-3']", state="attached")
    yield page
    context.close()


def tab(page, title: str) -> None:
    page.get_by_role("tab", name=title).click()


def column(page, scope: str, col: int) -> list[str]:
    return page.eval_on_selector_all(f"{scope} .ranking [role=gridcell][data-col='{col}']",
                                     "cells => cells.map(c => c.innerText.trim())")


def result_text(page) -> str:
    return page.input_value("#submit-result textarea")


def submit(page, file: Path, model: str) -> str:
    """Fill the Submit tab, upload `file`, press Submit; the Result box's text once it changes."""
    tab(page, "Submit")
    page.fill("#submit-model textarea, #submit-model input", model)
    page.fill("#submit-link textarea, #submit-link input", "https://example.org/model")
    before = result_text(page)
    page.set_input_files("#submit-file input[type=file]", str(file))
    page.wait_for_selector(f"#submit-file :text('{file.name}')")
    page.click("#submit-button")
    page.wait_for_function("([sel, old]) => { const t = document.querySelector(sel); return t && t.value && "
                           "t.value !== old; }", arg=["#submit-result textarea", before])
    return result_text(page)


def test_page_loads_and_every_tab_shows(page, shots):
    assert page.title() == "hazardkit leaderboard"
    assert column(page, "#tab-movsafebench", 1) == ["alpha-vl", "beta-vl", "gamma-vl"]  # ranked by accuracy
    assert column(page, "#tab-movsafebench", 0) == ["1", "2", "3"]
    assert column(page, "#tab-movsafebench", 8) == ["default"] * 3  # config, version, revision on every row
    assert all(v.startswith("sha256:") for v in column(page, "#tab-movsafebench", 10))
    assert column(page, "#tab-movsafebench", 11) == [f"https://example.org/{m}" for m in ("alpha-vl", "beta-vl",
                                                                                         "gamma-vl")]
    page.screenshot(path=shots / "tab_movsafebench.png", full_page=True)
    tab(page, "SafeRelBench")
    page.wait_for_selector("#tab-saferelbench .ranking [data-testid='cell-0-1']", state="visible")
    assert "Demo / synthetic data" in page.inner_text("#tab-saferelbench")
    assert column(page, "#tab-saferelbench", 1) == ["fixed:reference [base]", "fixed:unmitigated [base]"]
    page.screenshot(path=shots / "tab_saferelbench.png", full_page=True)
    tab(page, "About")
    about = page.inner_text("#tab-about")
    assert "How scores are computed" in about and "@misc{movsafebench" in about and "Holm" in about
    page.screenshot(path=shots / "tab_about.png", full_page=True)
    tab(page, "Submit")
    assert "one pending submission per user" in page.inner_text("#tab-submit")
    page.screenshot(path=shots / "tab_submit.png", full_page=True)


def test_breakdowns_and_the_significance_view(page, shots):
    board = page.locator("#tab-movsafebench")
    board.get_by_text("Pairwise significance", exact=True).click()
    matrix = board.locator(".block", has=page.get_by_text("Row vs column")).last
    matrix.wait_for(state="visible")
    from playwright.sync_api import expect

    expect(matrix).to_contain_text("—", timeout=15_000)  # the table body renders after its header
    text = board.inner_text()
    assert "Row vs column" in text and "Holm-adjusted exact McNemar" in text
    for model in ("alpha-vl", "beta-vl", "gamma-vl"):
        assert model in text
    assert "—" in text  # the diagonal
    board.get_by_text("Accuracy by scenario (paper table 3)", exact=True).click()
    expect(board).to_contain_text("intrusion", timeout=15_000)
    assert "no_edit" in board.inner_text() and "intrusion" in board.inner_text()
    assert board.locator("img").count() == 2  # the scenario and category plots
    page.screenshot(path=shots / "tab_movsafebench_significance.png", full_page=True)


def test_sort_a_column(page, shots):
    def sort(direction: str) -> list[float]:
        header = page.locator("#tab-movsafebench .ranking th[data-testid='header-3']")
        header.hover()
        header.locator("button.cell-menu-button").click()
        page.locator("button", has_text=f"Sort {direction}").click()
        page.wait_for_timeout(200)
        return [float(v) for v in column(page, "#tab-movsafebench", 3)]

    up = sort("ascending")
    assert up == sorted(up) and len(set(up)) == 3
    page.screenshot(path=shots / "sorted_ascending.png")
    down = sort("descending")
    assert down == sorted(up, reverse=True)


def test_upload_a_valid_submission_and_see_its_row(page, app, shots):
    model = '<img src=x onerror="window.__pwned=1">delta-vl'
    preds = predictions(app["refs"], app["tmp"] / "delta.jsonl", right_every=1)  # all right: ranked first
    text = submit(page, preds, model)
    assert text.startswith("ok: 60 predictions for movsafebench (config default): Total accuracy (edited images) "
                           "100.0%"), text
    assert "is on the leaderboard" in text
    assert model in page.inner_text("#submit-row")  # the row it adds, with the name as plain text
    page.screenshot(path=shots / "submit_ok.png", full_page=True)
    tab(page, "MovSafeBench")
    page.wait_for_function("() => document.querySelectorAll(\"#tab-movsafebench .ranking [role=gridcell]"
                           "[data-col='1']\").length === 4")
    assert column(page, "#tab-movsafebench", 1)[0] == model
    assert column(page, "#tab-movsafebench", 3)[0] == "100"
    assert page.evaluate("() => window.__pwned") is None  # the markup was never parsed as HTML
    assert page.locator("img[src='x']").count() == 0
    page.screenshot(path=shots / "tab_movsafebench_after_submit.png", full_page=True)


def test_a_malformed_upload_shows_the_one_line_error(page, app, shots):
    lines = predictions(app["refs"], app["tmp"] / "ok.jsonl").read_text().splitlines()
    bad = app["tmp"] / "broken.jsonl"
    bad.write_text("\n".join([*lines[:4], '{"id": "ms-0004" "prediction": "left"}', *lines[4:]]) + "\n")
    text = submit(page, bad, "broken-model")
    assert text == ("error: broken.jsonl, line 5: malformed JSON (Expecting ',' delimiter at column 18) "
                    "(each line must be one complete JSON object)")
    page.screenshot(path=shots / "submit_malformed.png", full_page=True)


def test_the_size_limit(page, app, shots):
    lines = predictions(app["refs"], app["tmp"] / "p.jsonl").read_text()
    over = app["tmp"] / "too_big.jsonl"
    over.write_text(lines + " " * (int(LIMIT_BYTES * 1.5) - len(lines)))  # valid content padded to 30 KB
    text = submit(page, over, "big-model")
    assert text == ("error: too_big.jsonl: upload is 30.0 KB, over the 20.0 KB limit (submit predictions.jsonl only, "
                    "or ask the operator for a higher limit)")
    page.screenshot(path=shots / "submit_too_big.png", full_page=True)
    # far over the limit: Gradio itself refuses the upload before it reaches the disk
    huge = app["tmp"] / "huge.jsonl"
    huge.write_text(lines + " " * LIMIT_BYTES * 3)
    page.click("#submit-file button[aria-label='Clear']") if page.locator(
        "#submit-file button[aria-label='Clear']").count() else None
    page.set_input_files("#submit-file input[type=file]", str(huge))
    toast = page.wait_for_selector("[data-testid='toast-text']")
    assert "exceed the maximum allowed size" in toast.inner_text() and "huge.jsonl" in toast.inner_text()
    page.screenshot(path=shots / "submit_far_too_big.png")
    # and the server refuses it too (a client that skips the page's check)
    import httpx

    response = httpx.post(app["url"] + "gradio_api/upload", files={"files": ("huge.jsonl", huge.read_bytes())},
                          timeout=30)
    assert response.status_code == 413, (response.status_code, response.text[:200])
