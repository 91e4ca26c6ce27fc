"""The committed configs of SafeRelBench (`demo`, `generated`) are exactly what their recipes generate, and they load.

Issue 31 item 7: `load_dataset("saferelbench", "generated")` works from a fresh clone, and the recipe
(manifests/saferelbench/generated.json) still regenerates the set byte for byte. The card lists both configs, and
`datasets` resolves every config's files before it loads one, so the small `demo` config is committed too: without
it a fresh clone's `load_dataset("saferelbench", "generated")` fails with DataFilesNotFoundError.
A Parquet file committed from an older generator, or a recipe whose digest was updated without republishing,
fails here (about 20 s: one generation of the whole config).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.saferelbench.samples import load_raw_samples

ROOT = Path(__file__).resolve().parents[1]
RECIPE = ROOT / "manifests" / "saferelbench" / "generated.json"


@pytest.mark.parametrize("config", ["demo", "generated"])
def test_a_committed_config_is_what_its_recipe_generates(tmp_path, config):
    recipe_path = ROOT / "manifests" / "saferelbench" / f"{config}.json"
    recipe = json.loads(recipe_path.read_text())
    out = tmp_path / f"{config}.jsonl"
    result = CliRunner().invoke(cli, ["saferel", "generate", "--recipe", str(recipe_path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "matches the recipe" in result.output, result.output
    assert hashlib.sha256(out.read_bytes()).hexdigest() == recipe["sha256"]
    generated = [json.loads(line) for line in out.read_text().splitlines()]
    published = [raw for _, raw in load_raw_samples(ROOT / "saferelbench", config)]
    assert len(published) == len(generated) == recipe["samples"]
    # the same samples, every field (Parquet's JSON-string columns decoded back); publish orders rows its own way
    by_id = {raw["id"]: raw for raw in published}
    assert set(by_id) == {raw["id"] for raw in generated}
    for mine in generated:
        assert by_id[mine["id"]] == mine, mine["id"]


def test_load_dataset_reads_the_generated_config_from_the_checkout(monkeypatch):
    """As a user would from the folder above the dataset (the card's `configs:` block picks the files).

    Only committed files count: a git-ignored Parquet file `make demo-data` left in this working tree would hide a
    config missing from a fresh clone (as CI's first run of this test showed), so every file the card names must be
    tracked by git."""
    import subprocess

    import yaml

    card = (ROOT / "saferelbench" / "README.md").read_text().split("---")[1]
    tracked = set(subprocess.run(["git", "ls-files", "saferelbench/data"], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.split())
    for config in yaml.safe_load(card)["configs"]:
        for entry in config["data_files"]:
            files = sorted((ROOT / "saferelbench").glob(entry["path"]))
            assert files, (config["config_name"], entry["path"])
            for file in files:
                assert str(file.relative_to(ROOT)) in tracked, f"{file} is not committed"
    import datasets

    recipe = json.loads(RECIPE.read_text())
    monkeypatch.chdir(ROOT)
    table = datasets.load_dataset("saferelbench", "generated", split="test")
    assert len(table) == recipe["samples"]
    split = table.features["split"]  # a ClassLabel: the card names its two values
    assert sorted(split.names) == ["control", "spatial"]
    assert table["split"].count(split.str2int("spatial")) == recipe["samples"] // 2
    activities = {a for a in table["source_activity"]}
    assert len(activities) >= 150  # issue 31 item 7: the paper's scale
