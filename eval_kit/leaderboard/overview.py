"""The overview: one row per model, the headline metric of each benchmark at the chosen dataset versions.

Each benchmark column comes from one cell (its primary config at the chosen version, see
`cells.primary`), so a value and its rank are always those of the benchmark's own table: nothing is
compared across versions or configs. A model with several runs in a cell shows its best-ranked one. Models
are ordered by how many benchmarks they have a result on, then by their mean rank over those (lower is
better); a benchmark without a result for a model is blank, never zero.
"""

from __future__ import annotations

from typing import Any


def overview(sections: dict[str, dict[str, Any] | None], titles: dict[str, str]) -> dict[str, Any]:
    """`sections`: benchmark -> its primary section at the chosen version (None: no result there)."""
    columns, per_model = [], {}
    present = [(b, s) for b, s in sections.items() if s is not None]
    for j, (benchmark, s) in enumerate(present):
        label = s["board"].headline_label
        where = f"config {s['config'] or 'unknown'}, {s['version_label']}" + (" (demo)" if s["synthetic"] else "")
        columns.append({"benchmark": benchmark, "name": titles.get(benchmark, benchmark), "label": label,
                        "title": f"{titles.get(benchmark, benchmark)}, {where}: {label}",
                        "synthetic": bool(s["synthetic"])})
        for m in s["meta"]:
            entry = per_model.setdefault(m["model"], {"meta": m, "cells": [None] * len(present)})
            current = entry["cells"][j]
            if m["rank"] == "-":
                continue
            if current is None or int(m["rank"]) < int(current["rank"]):
                entry["cells"][j] = {"headline": m["headline"], "ci": m["ci"], "rank": m["rank"], "of": s["count"],
                                     "run": m["run"]}
    rows = []
    for model, entry in per_model.items():
        found = [int(c["rank"]) for c in entry["cells"] if c is not None]
        if not found:
            continue
        # a row is demo when every result it shows is: hidden with "hide demo data", never mistaken for real
        shown = [present[j][1]["synthetic"] for j, c in enumerate(entry["cells"]) if c is not None]
        meta = {**entry["meta"], "label": model, "synthetic": all(shown)}
        rows.append({"model": model, "meta": meta, "cells": entry["cells"], "covered": len(found),
                     "mean_rank": sum(found) / len(found)})
    rows.sort(key=lambda r: (-r["covered"], r["mean_rank"], r["model"]))
    for i, r in enumerate(rows):  # equal coverage and mean rank share a place
        same = i and (rows[i - 1]["covered"], rows[i - 1]["mean_rank"]) == (r["covered"], r["mean_rank"])
        r["rank"] = rows[i - 1]["rank"] if same else i + 1
    note = ("One row per model: each benchmark's headline at the chosen dataset version (95% CI and the rank "
            "within that benchmark's table beside it; blank: no result). Ordered by the number of benchmarks "
            "with a result, then by the mean of those ranks.")
    demo = [c["name"] for c in columns if c["synthetic"]]
    if demo and len(demo) == len(columns):
        warning = ("Demo / synthetic data only: every result shown is a demo run, not a benchmark result. "
                   "Real results appear here once submitted.")
    elif demo:
        warning = (f"Demo / synthetic data in the {', '.join(demo)} column{'s' * (len(demo) > 1)} (marked demo): "
                   "not benchmark results.")
    else:
        warning = ""
    return {"columns": columns, "rows": rows, "note": note, "demo_warning": warning}
