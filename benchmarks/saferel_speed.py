"""Plans executed and scored per second on one core (target >= 10,000/s), against a baseline in the same run.

Workload: every demo sample's reference plan and its plan without mitigation steps (both from parsed
actions: what the scorer does after the plan parser), executed by the symbolic executor and scored by the
trace scorer. Also timed: the same plus plan parsing from raw text.
Baseline: evaluating the task goal with bddl's own compiled conditions over our literal-set backend
(`bddl.condition_evaluation.compile_state` + `evaluate_state`), i.e. what scoring would cost if each
episode compiled its goal through bddl instead of using our cached grounded closures.

    .venv/bin/python benchmarks/saferel_speed.py [--seconds 2] [--quick] [--samples PATH [--config NAME]]

`--samples` times another workload instead of the demo (e.g. `saferelbench --config generated`: the committed
generated config); the target is stated for the demo workload.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def rate(fn, items: list, seconds: float) -> float:
    """Items processed per CPU second of this process, repeating `fn` over `items` for about `seconds`.

    CPU time (`time.process_time`), not wall time: on a shared machine other processes' load would otherwise
    be counted against the executor; both the measurement and its baseline use the same clock."""
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for item in items:
            fn(item)
        done += len(items)
    return done / (time.process_time() - start)


def worst_parse_seconds(parse_plan) -> tuple[float, int]:
    """The slowest parse among pathological inputs (backtracking traps, 280 KB of <think>), and the largest size."""
    from eval_kit.saferelbench.plan_parser import MAX_CHARS

    texts = ["A" + " " * 160_000, "<think>" * 40_000, "GRASP(" * 50_000, "[{" * 50_000,
             "1. " + "GRASP apple " * 30_000, "x" * (3 * MAX_CHARS) + "\nGRASP(apple.n.01_1)"]
    worst = 0.0
    for text in texts:
        start = time.process_time()
        parse_plan(text)
        worst = max(worst, time.process_time() - start)
    return worst, max(len(t) for t in texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--quick", action="store_true", help="0.3 s per measurement (CI smoke run)")
    parser.add_argument("--samples", type=Path, default=None, help="samples file or dataset folder (default: demo)")
    parser.add_argument("--config", default=None, help="dataset config with --samples (e.g. generated)")
    args = parser.parse_args()
    if args.quick:
        args.seconds = min(args.seconds, 0.3)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core

    from eval_kit.saferelbench.episode import run_episode
    from eval_kit.saferelbench.goals import bddl_backend_evaluate
    from eval_kit.saferelbench.plan_parser import parse_plan
    from eval_kit.saferelbench.samples import load_samples

    source = args.samples or ROOT / "manifests" / "saferelbench" / "demo.jsonl"
    samples = list(load_samples(source, args.config).values())
    episodes = []
    for s in samples:
        episodes.append((s, list(s.reference_plan)))
        flagged = {i for steps in s.mitigation_steps.values() for i in steps}
        episodes.append((s, [a for i, a in enumerate(s.reference_plan) if i not in flagged]))
    texts = [(s, "\n".join(f"{i + 1}. {a}" for i, a in enumerate(plan))) for s, plan in episodes]
    mean_steps = sum(len(p) for _, p in episodes) / len(episodes)

    def execute_and_score(item):
        sample, plan = item
        run_episode(sample, plan)

    def parse_execute_and_score(item):
        sample, text = item
        parsed = parse_plan(text, sample.world.objects)
        run_episode(sample, parsed.actions, parse_error=parsed.error)

    def baseline_bddl_goal(item):
        sample, _ = item
        bddl_backend_evaluate(sample.raw["task_goal"], sample.world.objects, sample.initial_state)

    ours = rate(execute_and_score, episodes, args.seconds)
    with_parse = rate(parse_execute_and_score, texts, args.seconds)
    base = rate(baseline_bddl_goal, episodes, args.seconds)
    what = "demo" if args.samples is None else f"{args.samples}{f' ({args.config})' if args.config else ''}"
    print(f"workload: {len(episodes)} plans over {len(samples)} {what} samples, {mean_steps:.1f} steps per plan, "
          "1 core")
    print(f"execute + score (parsed actions):      {ours:10,.0f} plans/s  (target >= 10,000)")
    print(f"  the same per step:                     {ours * mean_steps:10,.0f} steps/s  (plans/s falls as plans grow)")
    print(f"parse + execute + score (raw text):    {with_parse:10,.0f} plans/s")
    print(f"baseline, bddl-compiled task goal only: {base:10,.0f} goals/s")
    print(f"ratio execute+score / baseline:         {ours / base:10.1f}x")
    worst, size = worst_parse_seconds(parse_plan)
    print(f"plan parser, worst pathological input:  {worst * 1000:10.1f} ms  (inputs up to {size:,} chars)")


if __name__ == "__main__":
    main()
