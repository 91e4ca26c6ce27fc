"""The house rules of the one-home-per-benchmark layout, checked on the source tree.

- per benchmark, the files whose path names it sit under at most two homes (eval side, builder side);
- no library module imports a command module, and no command module imports a CLI root at import time;
- every JSON Schema enum equals the label list in code, and the registry agrees with each spec.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest

from eval_kit import registry

ROOT = Path(__file__).resolve().parents[1]
CLI_ROOTS = {"eval_kit.cli", "builder.cli"}


def _tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


def _modules() -> dict[str, Path]:
    return {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
            for top in ("eval_kit", "builder") for p in (ROOT / top).rglob("*.py")}


def _imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def _defines_click_command(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return bool(re.search(r"^@(click\.(command|group)|\w+\.(command|group))\(", text, re.M))


def _is_command_module(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return (name in CLI_ROOTS or ".commands." in f"{name}." or last in {"commands", "command", "run_commands",
                                                                       "demo_steps", "leaderboard_cmd"}
            or name == "builder.demo")


@pytest.mark.parametrize("names", [("movsafebench", "hazardforge"), ("bd_hazardvlm", "bd-hazardvlm"),
                                   ("saferelbench", "saferel")])
def test_files_naming_a_benchmark_live_in_at_most_two_homes(names):
    # tests, speed scripts (benchmarks/), documentation (docs/: screenshots), the dataset folder and manifests aside
    homes = set()
    for file in _tracked():
        if file.split("/")[0] in {"tests", "benchmarks", "docs", "manifests", names[0]} or "/" not in file:
            continue
        if any(n in file for n in names):
            parts = file.split("/")
            home = "/".join(parts[:2])
            homes.add(home)
    assert len(homes) <= 2, homes
    assert all(h.split("/")[1] == names[0] for h in homes), homes


def test_every_click_command_is_in_a_command_module():
    hidden = [n for n, p in _modules().items() if _defines_click_command(p) and not _is_command_module(n)]
    assert not hidden, hidden


def test_no_library_module_imports_a_command_module():
    modules = _modules()
    commands = {n for n in modules if _is_command_module(n)}
    offenders = {}
    for name, path in modules.items():
        if name in commands:
            continue
        bad = {m for m in _imports(path) if m in commands or any(m.startswith(c + ".") for c in commands)}
        if bad:
            offenders[name] = sorted(bad)
    assert not offenders, offenders


def test_no_command_module_imports_a_cli_root_at_import_time():
    modules = _modules()
    cycles = {n: sorted(_imports(p, top_level_only=True) & CLI_ROOTS) for n, p in modules.items()
              if _is_command_module(n) and n not in CLI_ROOTS and _imports(p, top_level_only=True) & CLI_ROOTS}
    assert not cycles, cycles


def test_importing_one_command_does_not_import_the_others():
    code = ("import sys, eval_kit.movsafebench.commands; "
            "others = [m for m in sys.modules if m.startswith(('eval_kit.commands', 'builder', 'eval_kit.cli', "
            "'eval_kit.saferelbench.commands', 'eval_kit.bd_hazardvlm.commands'))]; assert not others, others")
    subprocess.run([str(Path(__import__("sys").executable)), "-c", code], cwd=ROOT, check=True)


def test_no_code_reads_the_source_tree_by_file_arithmetic():
    offenders = [str(p.relative_to(ROOT)) for p in _modules().values()
                 if re.search(r"__file__\)?\.resolve\(\)\.(parent|parents)", p.read_text(encoding="utf-8"))]
    assert not offenders, offenders


def _enums(schema: dict) -> dict[str, list]:
    """property path -> enum, for every enum in the schema."""
    found: dict[str, list] = {}

    def walk(node, path):
        if isinstance(node, dict):
            if "enum" in node:
                found[path] = node["enum"]
            for key, value in node.items():
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}/{i}")

    walk(schema, "")
    return found


def test_movsafebench_schema_enums_equal_the_label_lists():
    from builder.movsafebench.hazardforge import layout
    from eval_kit.movsafebench import spec
    from eval_kit.schemas import load_schema

    ref = _enums(load_schema("movsafebench_reference"))
    assert ref["/properties/answer"] == list(spec.ANSWERS)
    assert ref["/properties/scenario"] == list(spec.SCENARIOS)
    assert ref["/properties/category"] == [None, *spec.CATEGORIES]
    # sources are an open set of identifiers: the schema's pattern is the spec's
    source = load_schema("movsafebench_reference")["properties"]["source_benchmark"]
    assert source["pattern"] == f"^{spec.SOURCE_BENCHMARK_PATTERN.pattern}$"
    plan = _enums(load_schema("forge_plan_job"))
    assert plan["/properties/agent"] == list(spec.AGENTS)
    assert plan["/properties/ground_truth"] == list(spec.ANSWERS)
    assert plan["/properties/scenario"] == list(spec.EDITED_SCENARIOS)
    assert plan["/properties/category"] == list(spec.CATEGORIES)
    assert plan["/properties/edits/items/properties/role"] == list(layout.ROLES)
    for name in ("movsafebench_source", "movsafebench_source_folder"):
        enums = _enums(load_schema(name))
        assert enums["/properties/agent"] == list(spec.AGENTS)
        assert list(spec.ANSWERS) in enums.values()


def test_bd_hazardvlm_schema_enums_equal_the_label_lists():
    from eval_kit.bd_hazardvlm import spec
    from eval_kit.schemas import load_schema

    for name in ("bd_hazardvlm_annotation", "bd_hazardvlm_output"):
        enums = _enums(load_schema(name))
        assert enums["/properties/primary_hazard_category"] == list(spec.CATEGORIES)
        assert enums["/properties/risk_timing"] == list(spec.TIMINGS)
        assert enums["/properties/severity"] == list(spec.SEVERITIES)
        assert enums["/properties/defensive_actions/items"] == list(spec.ACTIONS)
    for name in ("bd_hazardvlm_annotation", "bd_hazardvlm_image_manifest"):
        assert _enums(load_schema(name))["/properties/source_dataset"] == list(spec.SOURCE_DATASETS)


def test_saferelbench_schema_enums_equal_the_label_lists():
    from eval_kit.saferelbench import executor, spec
    from eval_kit.schemas import load_schema

    enums = _enums(load_schema("saferelbench_sample"))
    assert enums["/properties/split"] == list(spec.SPLITS)
    assert enums["/properties/relation"] == list(spec.RELATIONS)
    assert enums["/properties/risk_type"] == list(spec.RISK_TYPES)
    assert enums["/properties/objects/items/properties/abilities/items"] == list(spec.ABILITIES)
    assert enums["/properties/termination_goals/items/properties/gate/properties/type"] == list(spec.GATES)
    assert _enums(load_schema("saferelbench_trace"))["/properties/steps/items/properties/status"] == [
        executor.OK, executor.FAILED]
    assert registry.get("saferelbench").variants == spec.VARIANTS


def test_registry_parts_resolve_and_match_their_specs():
    for bench in registry.benchmarks():
        spec = registry.resolve(f"{bench.package}.spec")
        assert bench.name == spec.NAME
        for attribute in ("task", "score_run", "reference_loader", "scorer", "report", "board", "checker",
                          "score_command", "citation", "publisher", "demo"):
            assert bench.part(attribute) is not None, (bench.name, attribute)
        assert bench.part("board")().benchmark == bench.name
        assert bench.part("checker")().benchmark == bench.name
        assert bench.part("task").name == bench.name
        assert bench.metric_path().is_file()
        assert registry.resolve(bench.publisher)().citation == bench.part("citation")
        # the metric module cites the same paper as the card
        assert "spec.CITATION" in bench.metric_path().read_text(encoding="utf-8")


def test_every_schema_file_is_valid_json_and_package_data():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "schemas/*.json" in pyproject and "metric/*" in pyproject
    for file in ROOT.glob("*/**/schemas/*.schema.json"):
        if file.parts[len(ROOT.parts)] in {"eval_kit", "builder"}:
            json.loads(file.read_text(encoding="utf-8"))
