"""Generation recipes: the committed, small description of a generated SafeRelBench config.

Why: the `generated` config is committed as Parquet, and `saferel generate` is deterministic, so a recipe
(`manifests/saferelbench/generated.json`: pairs per risk type, longest witness, and the SHA-256 of the JSON
Lines it produces) pins it. Publishing regenerates the samples and refuses them when their digest differs
from the recipe's (the executor, the planner or bddl changed): a release never silently differs from what
was reviewed. `--update-recipe` records a new digest on purpose.

A recipe: `{"config": str, "max_steps": int, "per_activity": int or {risk_type: int}, "pairs": {risk_type: int},
"samples": int, "sha256": hex}` (a per-risk `per_activity` lets a risk type that few activities can carry take
more hazard objects per activity). The demo recipe (`demo.json`) asks for fewer pairs of each risk type with the same
`max_steps` and `per_activity`; because each
risk type's pairs do not depend on the others' and come in a fixed order, the demo is a subset of the
generated config.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

KEYS = ("config", "max_steps", "per_activity", "pairs", "samples", "sha256")


def load_recipe(path: str | Path) -> dict[str, Any]:
    from eval_kit.saferelbench.spec import RISK_TYPES
    from eval_kit.strictjson import read_json

    recipe = read_json(Path(path), max_bytes=2**20)
    if not isinstance(recipe, dict) or sorted(recipe) != sorted(KEYS):
        raise BadInput(f"a recipe is a JSON object with exactly the keys {', '.join(KEYS)}", path=path)
    pairs = recipe["pairs"]
    if not isinstance(pairs, dict) or not pairs or any(r not in RISK_TYPES for r in pairs) or not all(
            isinstance(n, int) and n >= 1 for n in pairs.values()):
        raise BadInput("`pairs` maps risk types to whole numbers >= 1", path=path, field="pairs",
                       fix=f"use risk types from {', '.join(RISK_TYPES)}")
    if not _whole(recipe["max_steps"]):
        raise BadInput("`max_steps` must be a whole number >= 1", path=path, field="max_steps")
    per = recipe["per_activity"]
    if not (_whole(per) or (isinstance(per, dict) and per
                            and all(r in RISK_TYPES and _whole(n) for r, n in per.items()))):
        raise BadInput("`per_activity` must be a whole number >= 1, or map risk types to whole numbers >= 1",
                       path=path, field="per_activity")
    return recipe


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def sample_lines(pairs: dict[str, int], max_steps: int, per_activity: int | dict[str, int] = 1) -> Iterator[str]:
    """The JSON Lines of `saferel generate` for these pair counts (spatial, then its control)."""
    from builder.saferelbench.generate import generate

    for spatial, control in generate(pairs, max_steps=max_steps, per_activity=per_activity):
        yield json.dumps(spatial, ensure_ascii=False)
        yield json.dumps(control, ensure_ascii=False)


def regenerate(path: str | Path, out: str | Path, *, check: bool = True, update: bool = False) -> dict[str, Any]:
    """Generate the recipe's samples into `out`; with `check`, refuse them (BadInput) when their digest is not
    the recipe's; with `update`, write the new digest and count into the recipe. Returns the (new) recipe."""
    from eval_kit.jsonl import atomic_write_text

    recipe = load_recipe(path)
    text = "".join(line + "\n" for line in sample_lines(recipe["pairs"], recipe["max_steps"], recipe["per_activity"]))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    count = text.count("\n")
    if update:
        recipe = {**recipe, "samples": count, "sha256": digest}
        atomic_write_text(path, json.dumps(recipe, indent=2) + "\n")
    elif check and digest != recipe["sha256"]:
        raise BadInput(f"the regenerated samples ({count}, sha256 {digest[:12]}) differ from the recipe's "
                       f"({recipe['samples']}, {recipe['sha256'][:12]}): the executor, planner or bddl changed",
                       path=path, field="sha256",
                       fix=f"review them, then `hazardkit saferel generate --recipe {path} --update-recipe --out FILE`")
    atomic_write_text(out, text)
    return recipe
