"""The rendered leaderboard page in headless Chromium: it renders, its tables sort, its images load.

Baseline runs on demo-like data go through the real pipeline (eval -> score run -> leaderboard add ->
render). Skips only when no Chromium is installed and it cannot be installed (.ci/run installs it).
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from eval_kit.testing.synthetic_datasets import write_parquet_folder
from tests.cli_helpers import hk

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


@pytest.fixture(scope="module")
def chromium() -> str:
    path = find_chromium()
    if path is None and shutil.which("apt-get") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600, check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env, capture_output=True, timeout=900,
                       check=False)
        path = find_chromium()
    if path is None:
        pytest.skip("chromium is not installed and could not be installed with apt-get")
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("lb")
    data = write_parquet_folder(tmp / "data", 80, seed=6)
    results = []
    for model in ("random", "majority", "fixed:left"):
        out = tmp / "runs" / model.replace(":", "_")
        hk("eval", "movsafebench", "-m", model, "-b", "baseline", "--data", data, "--config", "demo", "--out", out,
           "--no-progress")
        hk("score", "run", out)
        results.append(out / "scores.json")
    hk("leaderboard", "add", *results, "--table", tmp / "results.parquet")
    hk("leaderboard", "render", "--table", tmp / "results.parquet", "--out", tmp / "site")
    return tmp / "site"


def browse(chromium: str, args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    return subprocess.run([chromium, *FLAGS, f"--user-data-dir={tmp / 'profile'}", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_page_renders_sorts_and_loads_images(chromium, site, tmp_path):
    url = (site / "index.html").as_uri()
    dom = browse(chromium, ["--virtual-time-budget=10000", "--dump-dom", url + "#selftest"], tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", dom.stdout)
    assert body, dom.stdout[:500]
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(1)))
    assert attrs.get("selftest") == "done", attrs
    assert int(attrs["tables"]) >= 6  # ranking, 4 breakdowns, significance matrix
    assert int(attrs["images-total"]) == 2 and attrs["images-loaded"] == attrs["images-total"]
    assert attrs["sorted-asc"] == "true"  # clicking the accuracy header sorted the ranking ascending
    assert "majority" in dom.stdout and "Pairwise significance" in dom.stdout


def test_screenshot(chromium, site, tmp_path):
    from PIL import Image, ImageStat

    shot = tmp_path / "page.png"
    run = browse(chromium, ["--window-size=1280,2000", f"--screenshot={shot}", (site / "index.html").as_uri()],
                 tmp_path)
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    image = Image.open(shot).convert("L")
    assert image.size == (1280, 2000)
    assert ImageStat.Stat(image).stddev[0] > 10  # not a blank page
