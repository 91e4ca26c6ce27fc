"""Small MovSafeBench records for the publish tests, drawn procedurally and fast (test data, never published).

Each scene is a road (vehicle) or a sidewalk (robot) in perspective with one coloured block standing for the
inserted object. They are labelled with the real source names on purpose: the tests check the licence
rules per source. The published `demo` config comes from the HazardForge demo run instead
(builder/hazardforge/demo.py). The block
sits in one third of the path and the answer is a free third, so the truth is known by construction.
Deterministic for a given seed, so the demo card and Croissant file are reproducible.
"""

from __future__ import annotations

import io
import random
from typing import Any

from eval_kit.movsafebench import spec

DEMO_SIZE = (320, 180)
_COLOURS = {"normal": (220, 40, 40), "anomalous": (40, 90, 220)}


def draw_scene(agent: str, blocked: str, category: str | None, rng: random.Random,
               size: tuple[int, int] = DEMO_SIZE) -> bytes:
    """A JPEG of a road or sidewalk with the object (if any) blocking the `blocked` third."""
    from PIL import Image, ImageDraw

    width, height = size
    horizon = int(height * rng.uniform(0.38, 0.48))
    sky = (135, 180, 230) if agent == "vehicle" else (170, 200, 225)
    ground = (90, 140, 70) if agent == "vehicle" else (150, 150, 140)
    path = (70, 70, 75) if agent == "vehicle" else (200, 190, 170)
    image = Image.new("RGB", size, sky)
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, horizon, width, height], fill=ground)
    vx = int(width * rng.uniform(0.45, 0.55))
    draw.polygon([(vx - 4, horizon), (vx + 4, horizon), (width, height), (0, height)], fill=path)
    if agent == "vehicle":
        for frac in (1 / 3, 2 / 3):  # lane markings converge on the vanishing point
            draw.line([(vx, horizon), (int(width * frac), height)], fill=(240, 240, 240), width=2)
    if category is not None:
        third = spec.ANSWERS.index(blocked)
        cx = int(width * (third + 0.5) / 3)
        cy = int(height * rng.uniform(0.72, 0.85))
        half = int(width * rng.uniform(0.05, 0.08))
        colour = _COLOURS[spec.GROUP_OF_CATEGORY[category]]
        draw.rectangle([cx - half, cy - half, cx + half, cy + half // 2], fill=colour, outline=(0, 0, 0))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def demo_records(per_scenario: int = 6, seed: int = 0) -> list[dict[str, Any]]:
    """Records for every scenario (no_edit included), both sources, with known answers and images as bytes."""
    if per_scenario < 1:
        raise ValueError("per_scenario must be at least 1")
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    for scenario in spec.SCENARIOS:
        categories = spec.SCENARIO_CATEGORIES[scenario] or (None,)
        answers = spec.SCENARIO_GROUND_TRUTHS[scenario]
        for k in range(per_scenario):
            source = spec.SOURCE_BENCHMARKS[k % 2]
            agent = spec.AGENT_OF_SOURCE[source]
            category = categories[(k * 5 + len(scenario)) % len(categories)]
            answer = answers[(k + len(scenario)) % len(answers)]
            blocked = next(a for a in spec.ANSWERS if a != answer)
            source_id = f"demo-src-{source}-{k:03d}"
            rid = f"demo-{scenario}-{k:04d}"
            records.append({
                "id": rid,
                "image": draw_scene(agent, blocked, category, rng),
                "answer": answer,
                "scenario": scenario,
                "category": category,
                "source_benchmark": source,
                "source_id": source_id,
                "object_direction": None if category is None else ("left" if blocked == "right" else "right"),
                "prompt": None if category is None else f"a {category} on the path",
                "editor": None if category is None else "demo-procedural",
                "editor_revision": None if category is None else "v1",
                "seed": seed * 1000 + len(records),
                "job_id": None if category is None else f"demo-job-{len(records):05d}",
                "source_sha256": None,
                "pipeline_version": "demo",
            })
    return records


def write_records_input(folder, records: list[dict[str, Any]] | None = None):
    """Write records (default: demo_records()) as `folder/records.jsonl` + image files; returns the folder."""
    import json
    from pathlib import Path

    folder = Path(folder)
    (folder / "images").mkdir(parents=True, exist_ok=True)
    lines = []
    for record in demo_records() if records is None else records:
        record = dict(record)
        image = record.pop("image")
        rel = f"images/{record['id']}.jpg"
        (folder / rel).write_bytes(image)
        lines.append(json.dumps({**record, "image_path": rel}))
    (folder / "records.jsonl").write_text("\n".join(lines) + "\n")
    return folder
