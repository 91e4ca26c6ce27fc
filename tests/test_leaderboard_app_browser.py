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

from eval_kit.testing.gradio_upload import set_file
from tests.cli_helpers import hk
from tests.test_leaderboard_page import chromium  # noqa: F401  (fixture: finds or installs Chromium)
from tests.test_leaderboard_space import predictions

ROOT = Path(__file__).resolve().parents[1]
LIMIT_BYTES = 20 * 1024  # the test references' predictions are ~3 KB
TIMEOUT_MS = 90_000  # the bound on every condition wait (never a sleep): generous for a loaded machine


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
    """The Space folder written by `hazardkit leaderboard space`, its app.py run as a Space runs it.

    The references are release 0.2.0 (a release manifest beside them); three submissions were scored on them.
    Two rows on release 0.1.0 of the same config (real scored results, re-labelled as that release) must
    stay in their own table. SafeRelBench demo baselines are beside them, one also under the name of a
    MovSafeBench model (a real scored result under another name), so the overview has a model on two
    benchmarks.
    """
    from eval_kit.leaderboard.results import add_results, read_table
    from eval_kit.leaderboard.space.pipeline import Leaderboard
    from eval_kit.leaderboard.space.settings import SpaceSettings

    tmp = tmp_path_factory.mktemp("app")
    refs = tmp / "references.jsonl"
    _write_refs(refs)
    (tmp / "release-manifest.json").write_text(json.dumps({"version": "0.2.0"}))
    data = tmp / "data"
    sr_samples = ROOT / "manifests" / "saferelbench" / "demo.jsonl"
    bd = tmp / "bd_hazardvlm"  # the BD-HazardVLM demo set, rebuilt: its tab is the widest (issue 33)
    hk("reconstruct", "bd-hazardvlm", "--demo", "--out", bd)
    env_refs = f"movsafebench={refs}; saferelbench={sr_samples}; bd-hazardvlm={bd}#demo"
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
    for model in ("majority", "fixed:no_major_hazard"):
        out = tmp / "runs" / f"bd-{model.replace(':', '-')}"
        hk("eval", "bd-hazardvlm", "-m", model, "-b", "baseline", "--data", bd, "--config", "demo", "--out", out,
           "--no-progress")
        hk("score", "run", out)
        runs.append(out / "scores.json")
    table = data / "results.parquet"
    hk("leaderboard", "add", *runs, "--table", table)
    rows = read_table(table)
    old = [{**r, "model": f"old-{r['model']}", "run": f"old-{r['run']}", "dataset_version": "0.1.0",
            "dataset_revision": "v0.1.0", "link": None}
           for r in rows if r["model"] in ("alpha-vl", "gamma-vl")]
    sr = next(r for r in rows if r["model"] == "fixed:reference")
    add_results(table, [*old, {**sr, "model": "alpha-vl", "run": "alpha-saferel", "backend": "vllm"}])
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
    deadline = time.monotonic() + 300  # Gradio's start alone took over 90 s beside other suites on 2 busy cores
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"app.py did not start: {(tmp / 'app.log').read_text()[-3000:]}")
        time.sleep(0.5)
    yield {"url": url, "refs": refs, "tmp": tmp, "data": data, "env_refs": env_refs, "log": tmp / "app.log"}
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
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app["url"])
    page.wait_for_selector("#board-overview table.overview tbody tr", state="attached")
    yield page
    context.close()


def tab(page, title: str, board: str | None = None) -> None:
    page.get_by_role("tab", name=title, exact=True).click()
    if board:
        page.wait_for_selector(f"#board-{board} .hk-board", state="visible")


def column(page, board: str, key: str, table: str = "ranking") -> list[str]:
    """The visible cells of one column (class c-KEY) of a board's tables, top to bottom."""
    return page.eval_on_selector_all(f"#board-{board} table.{table} tbody tr td.c-{key}",
                                     "cells => cells.filter(c => c.offsetParent !== null).map(c => c.innerText.trim())")


def wait_text(page, selector: str, text: str, present: bool = True) -> None:
    """Wait until the element's text contains (or no longer contains) `text`."""
    page.wait_for_function("([s, t, want]) => { const n = document.querySelector(s); "
                           "return !!n && n.innerText.includes(t) === want; }", arg=[selector, text, present])


def result_text(page) -> str:
    return page.input_value("#submit-result textarea")


def submit(page, file: Path, model: str, link: str = "https://example.org/model") -> str:
    """Fill the Submit tab, upload `file`, press Submit; the Result box's text once it changes."""
    tab(page, "Submit")
    page.fill("#submit-model textarea, #submit-model input", model)
    page.fill("#submit-link textarea, #submit-link input", link)
    before = result_text(page)
    set_file(page, "#submit-file", file, sync_api.TimeoutError)  # set again if the file was lost (see there)
    page.click("#submit-button")
    page.wait_for_function("([sel, old]) => { const t = document.querySelector(sel); return t && t.value && "
                           "t.value !== old; }", arg=["#submit-result textarea", before])
    return result_text(page)


def choose_version(page, benchmark: str, label: str) -> None:
    page.click(f"#version-{benchmark} input")
    page.get_by_role("option", name=label).click()


def test_page_loads_and_every_tab_shows(page, shots):
    assert page.title() == "hazardkit leaderboard"
    overview = page.inner_text("#board-overview")
    assert "Dataset version: MovSafeBench v0.2.0" in overview and "last updated" in overview
    page.screenshot(path=shots / "tab_overview.png", full_page=True)
    tab(page, "MovSafeBench", "movsafebench")
    assert column(page, "movsafebench", "model") == ["alpha-vl", "beta-vl", "gamma-vl"]  # ranked by accuracy
    assert column(page, "movsafebench", "rank") == ["1", "2", "3"]
    assert column(page, "movsafebench", "config") == ["default"] * 3  # config, version, revision on every row
    assert column(page, "movsafebench", "version") == ["0.2.0"] * 3
    assert all(v.startswith("sha256:") for v in column(page, "movsafebench", "revision"))
    assert column(page, "movsafebench", "link") == [f"example.org/{m}" for m in ("alpha-vl", "beta-vl", "gamma-vl")]
    links = page.eval_on_selector_all("#board-movsafebench table.ranking td.c-model a", "as => as.map(a => a.href)")
    assert links == [f"https://example.org/{m}" for m in ("alpha-vl", "beta-vl", "gamma-vl")]  # names are linked
    headline = column(page, "movsafebench", "headline")
    assert all(len(v.split(".")[-1]) == 1 for v in headline)  # one format: one decimal everywhere
    align = page.eval_on_selector("#board-movsafebench table.ranking td.c-headline",
                                  "c => getComputedStyle(c).textAlign")
    assert align == "right"
    for key in ("revision", "link"):  # visible at 1440 px without scrolling sideways
        box = page.locator(f"#board-movsafebench table.ranking th.c-{key}").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 1440, (key, box)
    text = page.inner_text("#board-movsafebench")
    assert "Dataset version: v0.2.0 shown" in text and "last updated" in text
    page.screenshot(path=shots / "tab_movsafebench.png", full_page=True)
    tab(page, "SafeRelBench", "saferelbench")
    assert "Demo / synthetic data" in page.inner_text("#board-saferelbench")
    assert column(page, "saferelbench", "model") == ["alpha-vl", "fixed:reference", "fixed:unmitigated"]
    page.screenshot(path=shots / "tab_saferelbench.png", full_page=True)
    tab(page, "About")
    about = page.inner_text("#tab-about")
    assert "How scores are computed" in about and "@misc{movsafebench" in about and "Holm" in about
    page.screenshot(path=shots / "tab_about.png", full_page=True)
    tab(page, "Submit")
    assert "one pending submission per user" in page.inner_text("#tab-submit")
    page.screenshot(path=shots / "tab_submit.png", full_page=True)


def test_two_dataset_versions_stay_apart(page, shots):
    tab(page, "MovSafeBench", "movsafebench")
    assert "old-" not in page.inner_text("#board-movsafebench")  # the newest version is shown by default
    dropdown = page.input_value("#version-movsafebench input")
    assert dropdown == "v0.2.0 (3 results)"
    choose_version(page, "movsafebench", "v0.1.0 (2 results)")
    wait_text(page, "#board-movsafebench", "dataset v0.1.0")
    assert column(page, "movsafebench", "model") == ["old-alpha-vl", "old-gamma-vl"]  # ranked among themselves
    assert column(page, "movsafebench", "rank") == ["1", "2"]
    assert column(page, "movsafebench", "version") == ["0.1.0"] * 2
    text = page.inner_text("#board-movsafebench")
    assert "beta-vl" not in text.replace("old-", "")  # no row of the other version, not even in a matrix
    overview = page.inner_text("#board-overview")
    assert "MovSafeBench v0.1.0" in overview
    page.screenshot(path=shots / "tab_movsafebench_v0.1.0.png", full_page=True)
    choose_version(page, "movsafebench", "v0.2.0 (3 results)")
    wait_text(page, "#board-movsafebench", "dataset v0.2.0")
    assert column(page, "movsafebench", "model") == ["alpha-vl", "beta-vl", "gamma-vl"]


def test_the_overview_ranks_a_model_across_benchmarks(page, shots):
    rows = page.eval_on_selector_all(
        "#board-overview table.overview tbody tr",
        "rs => rs.map(r => [...r.children].map(c => c.innerText.trim()))")
    heads = page.eval_on_selector_all("#board-overview table.overview th", "hs => hs.map(h => h.innerText.trim())")
    assert heads[:4] == ["#", "Model", "Type", "Backend"] and heads[-2:] == ["Mean rank", "Benchmarks"]
    ms = heads.index("MovSafeBench\nTotal accuracy (edited images) (%)")
    sr = heads.index("SafeRelBench demo\nSSR (task + safety) (%)")  # demo data: marked in the header
    by_model = {r[1]: r for r in rows}
    alpha = by_model["alpha-vl"]
    assert rows[0][1] == "alpha-vl" and alpha[0] == "1"  # on both benchmarks: ranked first
    assert alpha[-1] == "2 of 3" and "#1" in alpha[ms] and "#1" in alpha[sr]  # BD-HazardVLM: a third benchmark
    assert by_model["beta-vl"][sr] == "–"  # no SafeRelBench result: blank, not zero
    assert by_model["beta-vl"][-1] == "1 of 3"
    assert "[" in alpha[ms]  # the CI beside the value
    page.screenshot(path=shots / "overview_ranked.png", full_page=True)


def test_a_filter_hides_baselines_and_the_column_chooser_hides_columns(page, shots):
    tab(page, "SafeRelBench", "saferelbench")
    before = column(page, "saferelbench", "model")
    assert "fixed:reference" in before
    page.check("#hide-baselines")
    page.wait_for_function("() => document.querySelectorAll('#board-saferelbench tr[data-type=\"baseline\"]')"
                           ".length > 0 && [...document.querySelectorAll('#board-saferelbench tr[data-type="
                           "\"baseline\"]')].every(r => r.offsetParent === null)")
    assert column(page, "saferelbench", "model") == ["alpha-vl"]  # the vllm row stays
    page.screenshot(path=shots / "filter_hide_baselines.png", full_page=True)
    tab(page, "Overview")
    models = column(page, "overview", "model", table="overview")
    assert "fixed:reference" not in models and "alpha-vl" in models
    page.uncheck("#hide-baselines")
    tab(page, "MovSafeBench", "movsafebench")
    page.uncheck(".hk-columns input[data-col='revision']")
    page.wait_for_function("() => document.querySelector('#board-movsafebench th.c-revision').offsetParent === null")
    page.check(".hk-columns input[data-col='revision']")
    page.wait_for_function("() => document.querySelector('#board-movsafebench th.c-revision').offsetParent !== null")


def test_breakdowns_and_the_significance_view(page, shots):
    tab(page, "MovSafeBench", "movsafebench")
    board = page.locator("#board-movsafebench")
    board.get_by_text("Pairwise significance", exact=True).click()
    matrix = board.locator("table.matrix")
    matrix.wait_for(state="visible")
    text = matrix.inner_text()
    for model in ("alpha-vl", "beta-vl", "gamma-vl"):
        assert model in text
    assert "—" in text  # the diagonal
    shaded = page.eval_on_selector_all("#board-movsafebench table.matrix td.sig",
                                       "cs => cs.map(c => getComputedStyle(c).backgroundColor)")
    assert shaded and all(c == "rgb(255, 224, 138)" for c in shaded)  # significance shaded as on the static page
    board.get_by_text("Accuracy by scenario (paper table 3)", exact=True).click()
    table = board.locator("details.hk-breakdown[open] table.breakdown").first
    table.wait_for(state="visible")
    cell = table.locator("td.num").first
    assert "n=" in cell.inner_text() and "95% CI" in cell.get_attribute("title")  # n beside, CI on hover
    muted = page.eval_on_selector_all("#board-movsafebench details[open] td.muted", "cs => cs.length")
    assert muted > 0  # 60 references: every scenario has fewer than 20 samples per model
    assert board.locator("svg.hk-plot").count() == 2  # the scenario and category plots (inline SVG)
    assert "alpha-vl" in board.locator("svg.hk-plot").first.inner_html()  # its legend, as escaped text
    page.screenshot(path=shots / "tab_movsafebench_significance.png", full_page=True)


def test_sort_a_column(page, shots):
    tab(page, "MovSafeBench", "movsafebench")
    header = page.locator("#board-movsafebench table.ranking th.c-headline")
    header.click()
    page.wait_for_function("() => document.querySelector('#board-movsafebench table.ranking th.c-headline')"
                           ".dataset.dir === 'asc'")
    up = [float(v) for v in column(page, "movsafebench", "headline")]
    assert up == sorted(up) and len(set(up)) == 3
    page.screenshot(path=shots / "sorted_ascending.png")
    header.click()
    page.wait_for_function("() => document.querySelector('#board-movsafebench table.ranking th.c-headline')"
                           ".dataset.dir === 'desc'")
    assert [float(v) for v in column(page, "movsafebench", "headline")] == sorted(up, reverse=True)


def test_a_zips_metadata_backend_is_shown(page, app, shots):
    """The run folder's metadata.json says openai and names the model; the form's Backend is left alone."""
    import zipfile

    run = app["tmp"] / "openai-run"
    hk("eval", "movsafebench", "-m", "majority", "-b", "baseline", "--data", app["refs"], "--out", run,
       "--no-progress", "--text-only")
    meta = json.loads((run / "metadata.json").read_text())
    meta.update(backend="openai", model="api-model-x", settings={"temperature": 0})
    archive = app["tmp"] / "openai-run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(run / "predictions.jsonl", "openai-run/predictions.jsonl")
        zf.writestr("openai-run/metadata.json", json.dumps(meta))
    tab(page, "Submit")
    assert page.input_value("#submit-backend input") == ""  # nothing chosen in the form
    text = submit(page, archive, "")
    assert text.startswith("ok: 60 predictions"), text
    tab(page, "MovSafeBench", "movsafebench")
    wait_text(page, "#board-movsafebench table.ranking", "api-model-x")
    models = column(page, "movsafebench", "model")
    row = models.index("api-model-x")
    assert column(page, "movsafebench", "backend")[row] == "openai"
    assert column(page, "movsafebench", "type")[row] == "API"
    page.screenshot(path=shots / "tab_movsafebench_metadata_backend.png", full_page=True)


def test_an_approval_appears_without_reload(page, app, shots):
    from eval_kit.leaderboard.space.pipeline import Leaderboard
    from eval_kit.leaderboard.space.settings import SpaceSettings

    moderated = Leaderboard(SpaceSettings.from_env({"HAZARDKIT_SPACE_DIR": str(app["data"]),
                                                    "HAZARDKIT_REFERENCES": app["env_refs"],
                                                    "HAZARDKIT_SCORE_TIMEOUT": "0", "HAZARDKIT_MODERATION": "1"}))
    pending = moderated.submit(predictions(app["refs"], app["tmp"] / "eps.jsonl", right_every=4), "eps.jsonl",
                               "movsafebench", "epsilon-vl", "", "transformers", user="reviewed")
    assert pending.status == "pending", pending.lines
    tab(page, "MovSafeBench", "movsafebench")
    assert "epsilon-vl" not in page.inner_text("#board-movsafebench")
    page.evaluate("() => { window.__sameDocument = true; }")  # survives only if the page is never reloaded
    hk("leaderboard", "approve", pending.submission_id, "--space-dir", app["data"])
    wait_text(page, "#board-movsafebench table.ranking", "epsilon-vl")  # the open page follows (it polls)
    assert page.evaluate("() => window.__sameDocument") is True
    page.screenshot(path=shots / "tab_movsafebench_after_approval.png", full_page=True)
    hk("leaderboard", "reject", pending.submission_id, "--space-dir", app["data"])
    wait_text(page, "#board-movsafebench table.ranking", "epsilon-vl", present=False)
    assert page.evaluate("() => window.__sameDocument") is True


def test_upload_a_valid_submission_and_see_its_row(page, app, shots):
    model = '<img src=x onerror="window.__pwned=1">delta-vl ${7*7} {{x}}'
    preds = predictions(app["refs"], app["tmp"] / "delta.jsonl", right_every=1)  # all right: ranked first
    text = submit(page, preds, model)
    assert text.startswith("ok: 60 predictions for movsafebench (config default): Total accuracy (edited images) "
                           "100.0%"), text
    assert "is on the leaderboard" in text
    assert model in page.inner_text("#submit-row")  # the row it adds, with the name as plain text
    page.screenshot(path=shots / "submit_ok.png", full_page=True)
    tab(page, "MovSafeBench", "movsafebench")
    wait_text(page, "#board-movsafebench table.ranking", "delta-vl")
    assert column(page, "movsafebench", "model")[0] == model  # as typed: no markup, no template expansion
    assert column(page, "movsafebench", "headline")[0] == "100.0"
    assert page.evaluate("() => window.__pwned") is None  # the markup was never parsed as HTML
    assert page.locator("img[src='x']").count() == 0 and page.locator("svg img").count() == 0  # plots too
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


# --- issue 33: names, demo marking, width, uploads per user ---------------------------------------------------

def _widths(page, board: str) -> list[dict]:
    """Every table of a board: its right edge and whether its scroll box scrolls sideways."""
    return page.eval_on_selector_all(
        f"#board-{board} table",
        "ts => ts.filter(t => t.offsetParent !== null).map(t => { const r = t.getBoundingClientRect(); "
        "const box = t.closest('.hk-scroll'); return {cls: t.className, right: r.right, width: r.width, "
        "scrolls: box ? box.scrollWidth > box.clientWidth + 1 : false}; })")


def test_every_tab_fits_1440_px(page, shots):
    """Each tab's tables (ranking, breakdowns opened, matrices) fit a 1,440 px window: no sideways scrolling, so
    Dataset version and Revision are on screen."""
    tabs = [("Overview", "overview"), ("MovSafeBench", "movsafebench"), ("BD-HazardVLM", "bd_hazardvlm"),
            ("SafeRelBench", "saferelbench")]
    for title, board in tabs:
        tab(page, title, None if board == "overview" else board)
        page.wait_for_selector(f"#board-{board} table", state="visible")
        page.eval_on_selector_all(f"#board-{board} details", "ds => ds.forEach(d => d.open = true)")
        widths = _widths(page, board)
        assert widths, board
        for w in widths:
            assert w["right"] <= 1440 and not w["scrolls"], (board, w)
        if board != "overview":
            for key in ("version", "revision"):
                box = page.locator(f"#board-{board} table.ranking th.c-{key}").first.bounding_box()
                assert box is not None and box["x"] + box["width"] <= 1440, (board, key, box)
        page.eval_on_selector_all(f"#board-{board} details", "ds => ds.forEach(d => d.open = false)")
    docs = Path(os.environ.get("HAZARDKIT_DOCS_SCREENSHOTS") or shots)
    docs.mkdir(parents=True, exist_ok=True)
    tab(page, "Overview")
    page.screenshot(path=docs / "leaderboard_overview_1440.png", full_page=True)
    tab(page, "BD-HazardVLM", "bd_hazardvlm")
    page.screenshot(path=docs / "leaderboard_bd_hazardvlm_1440.png", full_page=True)


def test_demo_is_marked_and_hiding_it_says_so(page, shots):
    overview = page.inner_text("#board-overview")
    assert "Demo / synthetic data in the BD-HazardVLM, SafeRelBench columns (marked demo)" in overview
    heads = page.eval_on_selector_all("#board-overview table.overview th", "hs => hs.map(h => h.innerText.trim())")
    assert [h for h in heads if "demo" in h] == ["BD-HazardVLM demo\nCategory accuracy (%)",
                                                  "SafeRelBench demo\nSSR (task + safety) (%)"]
    models = column(page, "overview", "model", table="overview")
    assert models.count("fixed:reference") == 1  # one row per model: the prompt variant is not a second model
    tab(page, "SafeRelBench", "saferelbench")
    assert column(page, "saferelbench", "variant") == ["base"] * 3
    page.check("#hide-demo")
    tab(page, "BD-HazardVLM", "bd_hazardvlm")
    page.wait_for_selector("#board-bd_hazardvlm .hk-no-real", state="visible")
    assert "No non-demo results yet" in page.inner_text("#board-bd_hazardvlm")
    page.screenshot(path=shots / "bd_demo_hidden.png", full_page=True)
    tab(page, "Overview")
    models = column(page, "overview", "model", table="overview")
    assert "alpha-vl" in models and "fixed:reference" not in models and "majority" not in models
    assert not page.locator("#board-overview .hk-no-real").is_visible()  # real MovSafeBench rows remain
    page.uncheck("#hide-demo")


def test_a_demo_only_board_says_so_and_hiding_demo_leaves_a_message(browser, app, tmp_path, shots):
    """A leaderboard holding demo results only (what `make demo` serves): the Overview says every row is demo;
    with demo hidden it says there are no non-demo results yet, instead of an empty table."""
    from eval_kit.leaderboard.results import read_table, write_table

    data = tmp_path / "demo-only"
    data.mkdir()
    write_table(data / "results.parquet", [r for r in read_table(app["data"] / "results.parquet") if r["synthetic"]])
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "MPLBACKEND": "Agg"}
    for name in ("SPACE_ID", "HAZARDKIT_REFERENCES"):
        env.pop(name, None)
    with (tmp_path / "serve.log").open("w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "builder.cli", "leaderboard", "serve", "--space-dir", str(data),
                                 "--references", f"saferelbench={ROOT / 'manifests' / 'saferelbench' / 'demo.jsonl'}",
                                 "--score-timeout", "0", "--port", str(port)], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        _wait_served(f"http://127.0.0.1:{port}/", proc, tmp_path / "serve.log")
        demo = context.new_page()
        demo.set_default_timeout(TIMEOUT_MS)
        demo.goto(f"http://127.0.0.1:{port}/")
        demo.wait_for_selector("#board-overview table.overview tbody tr", state="attached")
        text = demo.inner_text("#board-overview")
        assert "Demo / synthetic data only: every result shown is a demo run, not a benchmark result" in text
        demo.screenshot(path=shots / "overview_demo_only.png", full_page=True)
        demo.check("#hide-demo")
        demo.wait_for_selector("#board-overview .hk-no-real", state="visible")
        assert "No non-demo results yet" in demo.inner_text("#board-overview")
        assert demo.eval_on_selector_all("#board-overview table.overview tbody tr",
                                         "rs => rs.filter(r => r.offsetParent !== null).length") == 0
        demo.screenshot(path=shots / "overview_demo_hidden.png", full_page=True)
    finally:
        context.close()
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


def _wait_served(url: str, proc, log: Path) -> None:
    deadline = time.monotonic() + 300  # a loaded machine: starting Gradio can take minutes
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the server did not start: {log.read_text()[-3000:]}")
        time.sleep(0.5)


def test_a_run_from_a_local_folder_shows_its_folder_name_never_its_path(page, app, shots):
    """`eval --model /home/.../internvl3` (here: a server that serves the model by its path, as vLLM does by
    default), zipped and uploaded: the board shows `internvl3`; the path is nowhere on the page."""
    import zipfile

    from tests.chat_stub import ChatStub

    served = app["tmp"] / "home" / "ux3" / "private-models" / "internvl3"
    served.mkdir(parents=True)
    run = app["tmp"] / "local-run"
    with ChatStub(lambda body: "Answer: B") as server:
        hk("eval", "movsafebench", "-m", served, "-b", "openai", "--data", app["refs"], "--out", run,
           "--base-url", server.url, "--api-key-env", "HK_NO_KEY", "--no-progress", "--text-only")
    archive = app["tmp"] / "local-run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in run.iterdir():
            zf.write(file, f"local-run/{file.name}")
    text = submit(page, archive, "")
    assert text.startswith("ok: 60 predictions"), text
    tab(page, "MovSafeBench", "movsafebench")
    wait_text(page, "#board-movsafebench table.ranking", "internvl3")
    assert "internvl3" in column(page, "movsafebench", "model")
    page.screenshot(path=shots / "tab_movsafebench_local_folder.png", full_page=True)
    for where in ("body",):
        assert "private-models" not in page.inner_text(where) and "private-models" not in page.content()



def test_two_users_uploading_the_same_bytes_each_keep_their_upload(browser, app, shots):
    """Gradio stores identical bytes once: when one user submits, the other's pending upload of the same file
    stays until that user submits too."""
    same = predictions(app["refs"], app["tmp"] / "same-bytes.jsonl", right_every=6)
    contexts = [browser.new_context(viewport={"width": 1440, "height": 1000}) for _ in range(2)]
    try:
        pages = []
        for context in contexts:
            p = context.new_page()
            p.set_default_timeout(TIMEOUT_MS)
            p.goto(app["url"])
            p.wait_for_selector("#board-overview table.overview tbody tr", state="attached")
            pages.append(p)
        for p, name in zip(pages, ("twin-a", "twin-b"), strict=True):
            tab(p, "Submit")
            p.fill("#submit-model textarea, #submit-model input", name)
            set_file(p, "#submit-file", same, sync_api.TimeoutError)
        texts = []
        for p in pages:
            before = result_text(p)
            p.click("#submit-button")
            p.wait_for_function("([sel, old]) => { const t = document.querySelector(sel); return t && t.value && "
                                "t.value !== old; }", arg=["#submit-result textarea", before])
            texts.append(result_text(p))
        assert all(t.startswith("ok: 60 predictions") for t in texts), texts
        tab(pages[1], "MovSafeBench", "movsafebench")
        wait_text(pages[1], "#board-movsafebench table.ranking", "twin-b")
        assert {"twin-a", "twin-b"} <= set(column(pages[1], "movsafebench", "model"))
        uploads = app["data"] / "uploads"
        assert not [f for f in uploads.rglob("same-bytes.jsonl")]  # both submitted: the shared file is gone
    finally:
        for context in contexts:
            context.close()
