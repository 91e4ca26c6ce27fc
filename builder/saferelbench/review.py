"""A Markdown review sheet of SafeRelBench pairs, for a person to judge whether each is a real hazard.

Why: self-validation proves a pair is executable and matched, not that a roboticist would accept it. The
sheet shows, for randomly drawn pairs (a fixed seed, so two reviewers see the same ones), the task, the
relation and risk type, the hazard set-up (the initial literals the twins differ in), the tip, any added
object with its support, and the reference and naive plans with the mitigation steps marked.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any


def _step(a: Mapping[str, Any]) -> str:
    return f"{a['action']}({', '.join(a['args'])})"


def _plan(plan: Sequence[Mapping[str, Any]], marked: bool) -> list[str]:
    return [f"{i + 1}. {'**' if marked and a.get('mitigates') else ''}{_step(a)}"
            f"{'** (mitigation)' if marked and a.get('mitigates') else ''}" for i, a in enumerate(plan)]


def render_review(rows: Sequence[Mapping[str, Any]], *, pairs: int = 40, seed: int = 0) -> str:
    """Markdown for `pairs` (spatial, control) pairs drawn with `seed` from sample rows (raw JSON objects)."""
    by_id = {r["id"]: r for r in rows}
    spatial = sorted((r for r in rows if r["split"] == "spatial" and r.get("matched_id") in by_id),
                     key=lambda r: r["id"])
    chosen = sorted(random.Random(seed).sample(spatial, min(pairs, len(spatial))), key=lambda r: r["id"])
    out = [f"# SafeRelBench review sheet: {len(chosen)} pairs (seed {seed}) of {len(spatial)}", "",
           "For each pair: would a roboticist accept the hazard as real, the tip as naming it, and the control "
           "as the same task without it?", ""]
    for n, s in enumerate(chosen, 1):
        c = by_id[s["matched_id"]]
        only_s = sorted(set(s["initial_state"]) - set(c["initial_state"]))
        only_c = sorted(set(c["initial_state"]) - set(s["initial_state"]))
        goals = [*s["process_goals"], *s["termination_goals"]]
        out += [f"## {n}. `{s['source_activity']}` · {s['relation']} · `{s['risk_type']}`", "",
                f"- task goal: `{s['task_goal']}`",
                f"- hazard set-up (spatial only): {', '.join(f'`{x}`' for x in only_s) or '-'}; "
                f"control instead: {', '.join(f'`{x}`' for x in only_c) or '-'}"]
        for a in s.get("added_objects") or []:
            out.append(f"- added object: `{a['instance']}` on/in `{a['support']}`"
                       + (f" ({a['purpose']}, both twins)" if a.get("purpose") else ""))
        for g in goals:
            trigger = g.get("trigger") or g.get("gate")
            out.append(f"- goal `{g['id']}`: `{g['condition']}` (trigger/gate `{trigger}`)")
        out += [f"- hazard reason: {s.get('hazard_reason') or '-'}", f"- tip: {goals[0]['tip']}", "",
                f"Reference plan ({len(s['reference_plan'])} steps):", "", *_plan(s["reference_plan"], True), "",
                f"Naive plan = control's reference plan ({len(c['reference_plan'])} steps):", "",
                *_plan(c["reference_plan"], False), ""]
    return "\n".join(out) + "\n"
