"""Correct / wrong / unparsed of the MovSafeBench, BD-HazardVLM and SafeRelBench parsers on the regression sets.

    .venv/bin/python benchmarks/parser_regression.py [--show-misses] [--quick]

(`--quick` is accepted for the benchmark runner; the sets are small, so it changes nothing.)

The sets live in tests/parser_regression_cases.py (expected answers written before the parsers were run on
them). "wrong" is a confident wrong answer (worse than none); "unparsed" is no answer where one was expected.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval_kit.bd_hazardvlm import spec as bd_spec
from eval_kit.movsafebench import spec as mov_spec
from tests.parser_regression_cases import (
    BD_HAZARDVLM,
    BD_HAZARDVLM_HELD_OUT,
    MOVSAFEBENCH,
    MOVSAFEBENCH_HELD_OUT,
    SAFEREL_OBJECTS,
    SAFERELBENCH,
    SAFERELBENCH_HELD_OUT,
)


def movsafebench_verdict(response: str, expected: str | None) -> str:
    got = mov_spec.parse_answer(response)
    if got == expected:
        return "correct"
    return "unparsed" if got is None else "wrong"


def bd_verdict(response: str, expected: dict[str, Any] | None) -> str:
    got = bd_spec.parse_response(response).prediction
    if expected is None:
        return "correct" if not got else "wrong"
    if any(name in got and got[name] != value for name, value in expected.items()):
        return "wrong"
    return "correct" if all(name in got for name in expected) else "unparsed"


def saferel_verdict(response: str, expected: list[str] | None) -> str:
    from eval_kit.saferelbench.plan_parser import parse_plan

    parsed = parse_plan(response, SAFEREL_OBJECTS)
    got = None if parsed.actions is None else [str(a) for a in parsed.actions]
    if got == expected:
        return "correct"
    return "unparsed" if got is None else "wrong"


def tally(cases, verdict) -> tuple[dict[str, int], list[tuple[str, Any, str]]]:
    counts = {"correct": 0, "wrong": 0, "unparsed": 0}
    misses = []
    for response, expected in cases:
        v = verdict(response, expected)
        counts[v] += 1
        if v != "correct":
            misses.append((response, expected, v))
    return counts, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--quick", action="store_true", help="accepted for the benchmark runner (sets are small)")
    args = parser.parse_args()
    for name, cases, verdict in (("movsafebench", MOVSAFEBENCH, movsafebench_verdict),
                                 ("movsafebench held-out", MOVSAFEBENCH_HELD_OUT, movsafebench_verdict),
                                 ("bd_hazardvlm", BD_HAZARDVLM, bd_verdict),
                                 ("bd_hazardvlm held-out", BD_HAZARDVLM_HELD_OUT, bd_verdict),
                                 ("saferelbench", SAFERELBENCH, saferel_verdict),
                                 ("saferelbench held-out", SAFERELBENCH_HELD_OUT, saferel_verdict)):
        counts, misses = tally(cases, verdict)
        print(f"{name}: {len(cases)} responses: {counts['correct']} correct, {counts['wrong']} wrong, "
              f"{counts['unparsed']} unparsed")
        if args.show_misses:
            for response, expected, v in misses:
                print(f"  {v:8s} expected {expected!r}: {response[:110]!r}")


if __name__ == "__main__":
    main()
