"""Reading a saferelbench submission and its references, and scoring them: the library behind `hazardkit score`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.saferelbench import spec

Key = tuple[str, str]  # (sample id, prompt variant)


def _variant(obj: dict[str, Any], path: Path, line: int) -> str:
    raw = obj.get("variant")
    if raw is None:
        return "base"
    variant = spec.normalise_variant(raw)
    if variant is None:
        raise BadInput(f"unknown prompt variant {raw!r}", path=path, line=line, field="variant",
                       fix=f"use one of {', '.join(spec.VARIANTS)}")
    return variant


def read_keyed(path: Path, schema: str, sample_ids: Iterable[str]) -> dict[Key, tuple[int, dict[str, Any]]]:
    """Lines keyed by (id, variant), schema-validated; unknown ids and duplicates are bad input."""
    from eval_kit.jsonl import iter_jsonl
    from eval_kit.schemas import first_error

    known = set(sample_ids)
    out: dict[Key, tuple[int, dict[str, Any]]] = {}
    for number, obj in iter_jsonl(path):
        problem = first_error(schema, obj)
        if problem is not None:
            raise BadInput(problem[1], path=path, line=number, field=problem[0])
        if obj["id"] not in known:
            raise BadInput(f"id {obj['id']!r} is not a sample", path=path, line=number, field="id",
                           fix="check that the file matches these samples")
        key = (obj["id"], _variant(obj, path, number))
        if key in out:
            raise BadInput(f"duplicate id {key[0]!r} for variant {key[1]!r} (first on line {out[key][0]})",
                           path=path, line=number, field="id", fix="keep one line per sample and variant")
        out[key] = (number, obj)
    return out


def _missing(keyed: dict[Key, Any], sample_ids: list[str], path: Path, allow_missing: bool) -> list[Key]:
    variants = sorted({v for _, v in keyed})
    missing = [(i, v) for v in variants for i in sample_ids if (i, v) not in keyed]
    if missing and not allow_missing:
        shown = ", ".join(f"{i} ({v})" for i, v in missing[:3]) + (" ..." if len(missing) > 3 else "")
        raise BadInput(f"{len(missing)} sample(s) have no entry: {shown}", path=path, field="id",
                       fix="cover every sample for each variant, or pass --allow-missing to score them as failures")
    return missing


def _progress(items: list, description: str):
    from rich.console import Console
    from rich.progress import track

    if len(items) < 2000 or not sys.stderr.isatty():
        return items
    return track(items, description=description, console=Console(stderr=True), transient=True)


def aggregate(results: list, samples: dict) -> dict[str, Any]:
    """The scores of episodes whose samples are looked up by id in `samples`."""
    from eval_kit.saferelbench.scoring import episode_scores

    return episode_scores(results, [samples[r.id] for r in results])


def score_plans(samples: dict, plans_path: Path, *, allow_missing: bool = False, on_failure: str = "continue",
                traces_out: Path | None = None) -> tuple[dict[str, Any], list]:
    """Execute every plan line with the symbolic executor and score it; returns (metrics, per-episode results)."""
    from eval_kit.saferelbench.episode import read_plan, run_episode
    from eval_kit.saferelbench.scorer import trace_to_json, unparsed_result

    keyed = read_keyed(plans_path, "saferelbench_plan", samples)
    missing = _missing(keyed, list(samples), plans_path, allow_missing)
    results, traces = [], []
    for (sample_id, variant), (_, obj) in _progress(list(keyed.items()), "executing plans"):
        sample = samples[sample_id]
        parsed = read_plan(sample, obj.get("plan"), obj.get("response"))
        result, trace = run_episode(sample, parsed.actions, variant=variant, parse_error=parsed.error,
                                    on_failure=on_failure, unparsed_lines=parsed.unparsed_lines,
                                    unparsed=parsed.unparsed)
        results.append(result)
        if traces_out is not None:
            traces.append(trace_to_json(sample_id, trace, variant))
    for sample_id, variant in missing:
        results.append(unparsed_result(samples[sample_id], variant, "missing"))
    if traces_out is not None:
        from eval_kit.jsonl import atomic_write_text

        atomic_write_text(traces_out, "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in traces))
    metrics = aggregate(results, samples)
    metrics["missing"] = len(missing)
    metrics["unparsed"] -= len(missing)  # a missing entry is counted once, as missing
    return metrics, results


def score_traces(samples: dict, traces_path: Path, *, allow_missing: bool = False) -> tuple[dict[str, Any], list]:
    """Score JSON traces (from a simulator or `--write-traces`) with the same rules."""
    from eval_kit.saferelbench.literals import LiteralError
    from eval_kit.saferelbench.scorer import score_trace, trace_from_json, unparsed_result

    keyed = read_keyed(traces_path, "saferelbench_trace", samples)
    missing = _missing(keyed, list(samples), traces_path, allow_missing)
    results = []
    for (sample_id, variant), (number, obj) in _progress(list(keyed.items()), "scoring traces"):
        try:
            trace = trace_from_json(obj, samples[sample_id])
        except LiteralError as exc:
            raise BadInput(str(exc), path=traces_path, line=number, field="steps") from None
        results.append(score_trace(samples[sample_id], trace, variant))
    for sample_id, variant in missing:
        results.append(unparsed_result(samples[sample_id], variant, "missing"))
    metrics = aggregate(results, samples)
    metrics["missing"] = len(missing)
    metrics["unparsed"] -= len(missing)  # a missing entry is counted once, as missing
    return metrics, results


def score_files(samples_path: Path, plans: Path | None, traces: Path | None = None, *, config: str | None = None,
                allow_missing: bool = False, on_failure: str = "continue", traces_out: Path | None = None,
                per_sample: bool = False) -> dict[str, Any]:
    """Everything the command does short of printing."""
    from eval_kit.saferelbench.samples import load_samples

    if plans is None and traces is None:
        raise BadInput("nothing to score", fix="pass --plans and/or --traces")
    if traces_out is not None and (Path(traces_out).is_dir() or not Path(traces_out).parent.is_dir()):
        raise BadInput("--write-traces must name a file in an existing folder", path=traces_out,
                       field="--write-traces", fix="e.g. --write-traces traces.jsonl")
    samples = load_samples(samples_path, config)
    result: dict[str, Any] = {"benchmark": spec.NAME, "samples": str(samples_path), "num_samples": len(samples)}
    if plans is not None:
        metrics, episodes = score_plans(samples, plans, allow_missing=allow_missing, on_failure=on_failure,
                                        traces_out=traces_out)
        result["plans"] = {"path": str(plans), "on_failure": on_failure, **metrics}
        if per_sample:
            result["plans"]["episodes"] = [e.to_json() for e in episodes]
    if traces is not None:
        metrics, episodes = score_traces(samples, traces, allow_missing=allow_missing)
        result["traces"] = {"path": str(traces), **metrics}
        if per_sample:
            result["traces"]["episodes"] = [e.to_json() for e in episodes]
    return result


