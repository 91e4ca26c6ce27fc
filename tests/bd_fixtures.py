"""Synthetic BD-HazardVLM references with the paper's table-2 marginals, for the BD test files."""

from __future__ import annotations

from typing import Any

import numpy as np

from eval_kit.bd_hazardvlm import spec

HAZARD_CATEGORIES = [c for c in spec.CATEGORIES if c != spec.CONTROL_CATEGORY]


def paper_references(seed: int = 0) -> list[dict[str, Any]]:
    """500 records: 55 control, 445 hazard (404 latent, 41 immediate), 205 rickshaw_easybike,
    58 high severity, 324 hallucination-trap and 285 western-bias-trap positives (paper section 3-5)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(500)
    control = set(order[:55].tolist())
    hazard = [int(i) for i in order[55:]]
    immediate = set(hazard[:41])
    rickshaw = set(hazard[41:246])  # 205
    high = set(hazard[::7][:58])
    halluc = set(rng.permutation(500)[:324].tolist())
    western = set(rng.permutation(500)[:285].tolist())
    others = [c for c in HAZARD_CATEGORIES if c != "rickshaw_easybike"]
    rows = []
    for i in range(500):
        if i in control:
            rec = dict(spec.CONTROL_ANSWER)
        else:
            rec = {
                "hazard_present": True,
                "primary_hazard_category": "rickshaw_easybike" if i in rickshaw else others[i % len(others)],
                "risk_timing": "immediate" if i in immediate else "latent",
                "severity": "high" if i in high else ("medium" if i % 3 else "low"),
                "defensive_actions": ["slow_down", "keep_distance"] if i % 2 else ["monitor_occlusion"],
            }
        rec.update({
            "id": f"BDHV_{i + 1:04d}",
            "source_dataset": "rsud20k" if i < 375 else "tfp_bd",
            "source_id": f"img_{i:05d}",
            "source_path": f"images/img_{i:05d}.jpg",
            "evidence": "synthetic",
            "hallucination_trap": i in halluc,
            "western_bias_trap": i in western,
            "pilot": i < 100,
        })
        rows.append(rec)
    return rows


def perfect_prediction(ref: dict[str, Any]) -> dict[str, Any]:
    """The eight-field output that matches a reference (trap flags copied from the annotations)."""
    return {
        "hazard_present": ref["hazard_present"],
        "primary_hazard_category": ref["primary_hazard_category"],
        "risk_timing": ref["risk_timing"],
        "severity": ref["severity"],
        "defensive_actions": list(ref["defensive_actions"]),
        "evidence": "copied",
        "possible_hallucination": ref["hallucination_trap"],
        "possible_western_road_bias": ref["western_bias_trap"],
    }
