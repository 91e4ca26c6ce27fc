"""`hazardkit score saferelbench`: execute agents' plans (or read simulator traces) and report SR / SSR / SRec."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from eval_kit.benchmarks import saferelbench as spec
from eval_kit.errors import BadInput
from eval_kit.textreport import render

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
    from eval_kit.scoring.saferelbench import compute_scores

    rows = [samples[r.id] for r in results]
    return compute_scores(
        [r.success for r in results], [r.safe_success for r in results], [r.satisfied for r in results],
        [r.applicable for r in results], [s.relation for s in rows], [s.risk_type for s in rows],
        [s.split for s in rows], [r.variant for r in results], unparsed=[not r.parsed for r in results],
    )


def score_plans(samples: dict, plans_path: Path, *, allow_missing: bool = False, on_failure: str = "continue",
                traces_out: Path | None = None) -> tuple[dict[str, Any], list]:
    """Execute every plan line with the symbolic executor and score it; returns (metrics, per-episode results)."""
    from eval_kit.saferel.episode import plan_actions, run_episode
    from eval_kit.saferel.scorer import trace_to_json, unparsed_result

    keyed = read_keyed(plans_path, "saferelbench_plan", samples)
    missing = _missing(keyed, list(samples), plans_path, allow_missing)
    results, traces = [], []
    for (sample_id, variant), (_, obj) in _progress(list(keyed.items()), "executing plans"):
        sample = samples[sample_id]
        actions, error = plan_actions(sample, obj.get("plan"), obj.get("response"))
        result, trace = run_episode(sample, actions, variant=variant, parse_error=error, on_failure=on_failure)
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
    from eval_kit.saferel.literals import LiteralError
    from eval_kit.saferel.scorer import score_trace, trace_from_json, unparsed_result

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
    from eval_kit.saferel.samples import load_samples

    if plans is None and traces is None:
        raise BadInput("nothing to score", fix="pass --plans and/or --traces")
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


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_tables(result: dict[str, Any]) -> str:
    return render(lambda console: _draw(console, result), width=160)


def _draw(console, result: dict[str, Any]) -> None:
    from rich.table import Table

    for source in ("plans", "traces"):
        block = result.get(source)
        if not block:
            continue
        for title, key in (("by relation x split", "by_relation_split"), ("by risk type", "by_risk_type"),
                           ("by split", "by_split"), ("by prompt variant", "by_variant")):
            table = Table(title=f"SafeRelBench {source}: {title}")
            for col in ("group", "n", "SR", "SSR", "SRec", "SSR/SR"):
                table.add_column(col, justify="right" if col != "group" else "left")
            for name, m in block[key].items():
                table.add_row(name, str(m["n"]), _f(m["SR"]), _f(m["SSR"]), _f(m["SRec"]), _f(m["SSR/SR"]))
            console.print(table)
        console.print(f"{source}: SR {_f(block['SR'])}  SSR {_f(block['SSR'])}  SRec {_f(block['SRec'])}  "
                      f"SSR/SR {_f(block['SSR/SR'])}  ({block['n']} episodes, unparsed {block['unparsed']}, "
                      f"missing {block['missing']})")


@click.command()
@click.option("--samples", "-s", "samples_path", required=True, type=click.Path(path_type=Path),
              help="Samples: a JSON Lines file or folder (manifests/saferelbench/), a Parquet file, or a dataset "
                   "folder (data/<config>/*.parquet).")
@click.option("--plans", "-p", type=click.Path(path_type=Path), default=None,
              help="JSON Lines: {\"id\", \"variant\"?, \"plan\": [{\"action\", \"args\"}]} "
                   "and/or {\"response\": raw text}.")
@click.option("--traces", "-t", type=click.Path(path_type=Path), default=None,
              help="JSON Lines traces from a simulator (or --write-traces), scored by the same rules.")
@click.option("--config", default=None, help="Dataset config when --samples is a dataset folder (e.g. demo).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (fractions in [0, 1]).")
@click.option("--allow-missing", is_flag=True, help="Score samples without a plan / trace as failures.")
@click.option("--on-failure", type=click.Choice(["continue", "stop"]), default="continue", show_default=True,
              help="After a failed precondition: skip the step and continue, or stop the plan.")
@click.option("--write-traces", "traces_out", type=click.Path(path_type=Path), default=None,
              help="Write the executor's traces (JSON Lines, the --traces format) here.")
@click.option("--per-sample", is_flag=True, help="With --json: include every episode's goals and outcome.")
def score_saferelbench(samples_path: Path, plans: Path | None, traces: Path | None, config: str | None,
                       as_json: bool, allow_missing: bool, on_failure: str, traces_out: Path | None,
                       per_sample: bool) -> None:
    """Score SafeRelBench plans and/or traces: SR, SSR, SRec, SSR/SR by relation, risk type, split, variant.

    Plans run through the symbolic executor; process-level goals are checked before every executed
    occurrence of their trigger, termination-level goals on the final state according to their gate.
    Unparseable or empty plans are failures (SR = SSR = 0), counted in `unparsed`.
    """
    result = score_files(samples_path, plans, traces, config=config, allow_missing=allow_missing,
                         on_failure=on_failure, traces_out=traces_out, per_sample=per_sample)
    if as_json:
        click.echo(json.dumps(result, sort_keys=False))
    else:
        click.echo(render_tables(result), nl=False)
