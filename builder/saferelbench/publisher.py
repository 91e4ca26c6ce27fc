"""SafeRelBench publisher: samples that pass self-validation, as flat rows (nested fields as JSON strings).

Rows come from `builder.saferelbench.samples.load_validated_samples`, which refuses the whole input when any
sample fails self-validation (its reference plan must succeed safely, and dropping each mitigation must
leave the task successful but unsafe): an invalid sample is never published. The card counts samples
per relation x risk type x split, measured from the written Parquet.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from builder.publish.publishers import Publisher, SourceDataset
from eval_kit.saferelbench import spec

DEMO_CONFIG = "demo"
GENERATED_CONFIG = "generated"  # all samples `saferel generate` makes from BEHAVIOR-1K (manifests/.../generated.json)


def rows_from_input(path: Path) -> Iterator[dict[str, Any]]:
    """Validated rows sorted by id, from a samples JSON Lines file, a folder of them, a dataset folder, or a
    generation recipe (`manifests/saferelbench/generated.json`: the samples are regenerated deterministically
    and must match the recipe's digest)."""
    from builder.saferelbench.samples import load_validated_samples

    path = Path(path)
    if path.suffix == ".json":
        import tempfile

        from builder.saferelbench.recipe import regenerate

        with tempfile.TemporaryDirectory() as tmp:
            samples = Path(tmp) / "samples.jsonl"
            regenerate(path, samples, check=True)
            rows = load_validated_samples(samples)
    else:
        rows = load_validated_samples(path)
    return iter(sorted(rows, key=lambda row: row["id"]))


def demo_input() -> Path:
    from builder.saferelbench.samples import DEMO_DIR

    return DEMO_DIR


def _risk_definitions() -> list[dict[str, str]]:
    from builder.saferelbench.risks import DEFINITIONS

    return [{"risk": d.risk, "relation": d.relation, "danger": d.danger, "objects": d.objects, "trigger": d.trigger,
             "tip": d.tip_for("<hazard object>", "<device / support / container>"),
             "mitigation": d.mitigation.format(hazard="<hazard object>", other="<device / support / container>"),
             "end_state": d.end_state or "-"} for d in DEFINITIONS.values()]


def saferelbench_publisher() -> Publisher:
    return Publisher(
        name=spec.NAME,
        pretty_name="SafeRelBench",
        summary=(
            "Household tasks on BEHAVIOR-1K activities whose safe execution depends on a spatial relation "
            "between objects (supporting, containment, proximity), with matched non-spatial controls; plans "
            "are scored for task success and process-level safety."
        ),
        features=spec.features,
        rows_from_input=rows_from_input,
        allows_images=False,
        licence="cc-by-nc-4.0",
        licence_urls=("https://creativecommons.org/licenses/by-nc/4.0/", "https://opensource.org/license/mit"),
        licence_text="Annotations: CC BY-NC 4.0. Activity definitions come from BEHAVIOR-1K via the `bddl` "
                     "package (MIT).",
        task_categories=("robotics",),
        tags=("embodied-agents", "safety", "planning", "bddl", "behavior-1k"),
        sources=(SourceDataset(name="BEHAVIOR-1K (bddl)", url="https://github.com/StanfordVL/bddl", licence="MIT",
                               attribution="Activity definitions (BDDL) shipped with the bddl package."),),
        citation=spec.CITATION,
        crosstab=("risk_type", "split"),
        count_columns=("relation", "split", "hazard_object", "source_activity", "plan_steps", "place_on_top_steps",
                       "termination_goal_count"),
        demo_configs=(DEMO_CONFIG,),
        template="builder.saferelbench:card_template.md",
        demo_input=demo_input(),
        extra={"relation_of_risk": dict(spec.RELATION_OF_RISK), "relations": list(spec.RELATIONS),
               "generated_config": GENERATED_CONFIG, "risk_definitions": _risk_definitions()},
    )
