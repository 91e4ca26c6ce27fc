"""Regenerate the BD-HazardVLM DEMO data: 20 synthetic road pictures, their manifest and demo annotations.

DEMO ONLY: the pictures are drawn shapes, not RSUD20K or TFP-BD frames, and the annotations are
illustrative labels for them (ids BDHV_DEMO_0001..0020). They exercise `hazardkit reconstruct
bd-hazardvlm --demo` and the scoring pipeline; they are never the benchmark.
Run: `python manifests/bd_hazardvlm/v1/demo/make_demo.py` (rewrites the files in this folder).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
W, H = 192, 108
# (category, timing, severity, actions, hallucination_trap, western_bias_trap, evidence, what to draw)
SCENES = [
    ("informal_pedestrian_crossing", "immediate", "high", ["stop_or_yield", "slow_down"], True, True,
     "people walking across the carriageway ahead with no crossing visible", "people"),
    ("rickshaw_easybike", "latent", "medium", ["slow_down", "keep_distance"], True, False,
     "a cycle-rickshaw drifting into the ego lane from the left", "rickshaw"),
    ("cng_unpredictable_stop", "latent", "medium", ["keep_distance", "prepare_to_brake"], False, True,
     "a green CNG auto-rickshaw slowing at the kerb ahead", "cng"),
    ("bus_truck_occlusion", "latent", "high", ["monitor_occlusion", "avoid_overtaking"], True, True,
     "a bus on the left hides the road beyond it", "bus"),
    ("motorcycle_weaving", "immediate", "medium", ["keep_distance", "slow_down"], False, False,
     "a motorcycle cutting between two vehicles close ahead", "motorcycle"),
    ("road_surface_damage", "latent", "medium", ["slow_down", "proceed_cautiously"], False, True,
     "dark potholes across the lane", "potholes"),
    ("waterlogging", "latent", "high", ["slow_down", "proceed_cautiously"], True, False,
     "standing water covers most of the road surface", "water"),
    ("roadside_market_crowd", "latent", "medium", ["slow_down", "monitor_occlusion"], True, True,
     "stalls and people along the right edge spill onto the road", "market"),
    ("animal_cart_obstacle", "latent", "low", ["slow_down", "change_lane_carefully"], False, False,
     "a hand cart moving slowly in the lane", "cart"),
    ("uncontrolled_intersection", "latent", "medium", ["slow_down", "prepare_to_brake"], True, True,
     "a side road joins with no signal or marking", "junction"),
    ("low_visibility", "latent", "medium", ["slow_down", "keep_distance"], True, False,
     "dark scene with only headlights visible", "night"),
    ("no_major_hazard", "none", "low", ["no_action"], False, False, "an empty road with clear view", "empty"),
    ("rickshaw_easybike", "immediate", "high", ["stop_or_yield", "prepare_to_brake"], False, True,
     "an easybike stopped across the lane directly ahead", "rickshaw_close"),
    ("informal_pedestrian_crossing", "latent", "medium", ["slow_down", "monitor_occlusion"], True, True,
     "a pedestrian waiting at the road edge between parked vehicles", "person_edge"),
    ("bus_truck_occlusion", "latent", "medium", ["monitor_occlusion", "keep_distance"], True, False,
     "a truck ahead blocks the view of the lane", "truck"),
    ("motorcycle_weaving", "latent", "medium", ["keep_distance"], False, True,
     "motorcycles spread across the lane ahead", "motorcycles"),
    ("no_major_hazard", "none", "low", ["no_action"], False, True, "light traffic far ahead", "far_car"),
    ("cng_unpredictable_stop", "immediate", "high", ["stop_or_yield", "slow_down"], False, False,
     "a CNG stopped abruptly in the lane close ahead", "cng_close"),
    ("road_surface_damage", "latent", "low", ["proceed_cautiously"], True, False,
     "broken surface at the left edge", "edge_damage"),
    ("waterlogging", "latent", "medium", ["slow_down", "avoid_overtaking"], True, True,
     "a puddle hides the right half of the road", "puddle"),
]
COLORS = {"people": (200, 60, 60), "rickshaw": (220, 180, 40), "cng": (40, 160, 60), "bus": (200, 40, 40),
          "motorcycle": (30, 30, 30), "potholes": (50, 45, 40), "water": (90, 120, 160), "market": (180, 90, 160),
          "cart": (130, 90, 50), "junction": (120, 120, 120), "night": (20, 20, 40), "empty": (0, 0, 0)}


def draw(kind: str, index: int) -> Image.Image:
    night = kind == "night"
    image = Image.new("RGB", (W, H), (25, 25, 45) if night else (150, 190, 230))
    d = ImageDraw.Draw(image)
    d.rectangle([0, 50, W, H], fill=(40, 60, 35) if night else (110, 140, 80))
    d.polygon([(86, 50), (106, 50), (W - 10, H), (10, H)], fill=(35, 35, 35) if night else (95, 95, 95))
    base = kind.split("_")[0]
    color = COLORS.get(kind, COLORS.get(base, (200, 120, 30)))
    x = 40 + (index * 37) % 100
    if kind in ("water", "puddle"):
        d.ellipse([60 if kind == "water" else 100, 70, 180, 100], fill=COLORS["water"])
    elif kind in ("potholes", "edge_damage"):
        for k in range(4):
            d.ellipse([x + 12 * k - 20, 80 + 3 * k, x + 12 * k - 10, 86 + 3 * k], fill=COLORS["potholes"])
    elif kind in ("bus", "truck"):
        d.rectangle([20, 35, 80, 95], fill=COLORS["bus"] if kind == "bus" else (60, 80, 150))
    elif kind == "junction":
        d.polygon([(0, 70), (90, 62), (90, 72), (0, 85)], fill=(95, 95, 95))
    elif kind == "night":
        d.ellipse([88, 58, 92, 62], fill=(255, 255, 200))
        d.ellipse([100, 58, 104, 62], fill=(255, 255, 200))
    elif kind == "market":
        for k in range(5):
            d.rectangle([150 + 8 * (k % 2), 55 + 10 * k, 170 + 8 * (k % 2), 62 + 10 * k], fill=COLORS["market"])
    elif kind != "empty":
        size = 18 if kind.endswith("close") else 10
        count = 3 if kind in ("people", "motorcycles") else 1
        for k in range(count):
            d.rectangle([x + 15 * k, 80 - size, x + 15 * k + size, 80], fill=color)
    return image


LICENSE = "CC BY-NC 4.0 (synthetic demo image)"
ATTRIBUTION = "hazardkit demo: procedurally drawn, not a source-dataset image"


def main() -> None:
    manifest, annotations = [], []
    for i, (cat, timing, sev, acts, hall, west, evidence, kind) in enumerate(SCENES, start=1):
        source = "rsud20k" if i <= 14 else "tfp_bd"
        rel = f"images/demo_{i:03d}.png" if source == "rsud20k" else f"frames/clip_{i:02d}/frame_0001.png"
        path = HERE / "sources" / source / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        draw(kind, i).save(path, format="PNG", optimize=False)
        data = path.read_bytes()
        sample_id = f"BDHV_DEMO_{i:04d}"
        manifest.append({
            "id": sample_id, "source_dataset": source, "path": rel, "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data), "width": W, "height": H, "license": LICENSE, "attribution": ATTRIBUTION,
        })
        annotations.append({
            "id": sample_id, "source_dataset": source, "source_id": Path(rel).stem if source == "rsud20k"
            else f"clip_{i:02d}/frame_0001", "source_path": rel, "hazard_present": cat != "no_major_hazard",
            "primary_hazard_category": cat, "risk_timing": timing, "severity": sev, "defensive_actions": acts,
            "evidence": f"DEMO: {evidence}", "hallucination_trap": hall, "western_bias_trap": west,
            "pilot": i <= 4,
        })
    (HERE / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in annotations), encoding="utf-8")
    # the manifest through the maintainers' tool, as for the real release: every image decoded in full first
    from builder.bd_hazardvlm.manifest import make_manifest

    entries, problems = make_manifest(
        HERE / "annotations.jsonl", {s: HERE / "sources" / s for s in ("rsud20k", "tfp_bd")},
        HERE / "image_manifest.jsonl", licenses=dict.fromkeys(("rsud20k", "tfp_bd"), LICENSE),
        attributions=dict.fromkeys(("rsud20k", "tfp_bd"), ATTRIBUTION))
    assert not problems, [p.line() for p in problems]
    assert [(e["id"], e["width"], e["height"]) for e in entries] == [(m["id"], W, H) for m in manifest]


if __name__ == "__main__":
    main()
