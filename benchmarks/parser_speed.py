"""Time of each answer parser on 1 MB adversarial responses, against a 1 MB ordinary response.

    .venv/bin/python benchmarks/parser_speed.py [--quick]

Both parsers are linear in their input (eval_kit/responses.py strips reasoning in one scan, and each parser
reads a bounded head and tail of the answer: movsafebench.spec.ANSWER_HEAD/TAIL, bd_hazardvlm.spec's
ANSWER_HEAD/TAIL and repair bounds). A quadratic regex or scan shows here as a ratio in the thousands.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval_kit.bd_hazardvlm.spec import parse_response
from eval_kit.movsafebench.spec import parse_answer

MB = 1_000_000


def _fill(unit: str, size: int = MB) -> str:
    return unit * (size // len(unit) + 1)


CASES = {
    "ordinary prose (baseline)": _fill("The road ahead has a parked truck on the right and a cyclist. "),
    "280 KB of <think>": _fill("<think>", 280_000),
    "1 MB of <think>": _fill("<think>"),
    "1 MB of </think> then B": _fill("</think>") + "B",
    "1 MB of <think> with text": _fill("<think>go left "),
    "100k [ (BD)": "[" * 100_000,
    "1 MB of [": _fill("["),
    "1 MB of {": _fill("{"),
    "1 MB of {}": _fill("{}"),
    "brace scan on one long line": '{"evidence": "' + _fill("x"),
    "1 MB of ``` fences": _fill("```json\n{"),
    "1 MB of 'Answer: '": _fill("Answer: "),
    "1 MB of option lines": _fill("A. go left\n"),
    "go + 1000 spaces, repeated": _fill("go" + " " * 1000),
    "1 MB of quotes and backslashes": _fill('"\\'),
    "1 MB of 'not go left'": _fill("we should not go left, "),
}


def timed(fn, text: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one timing per case instead of the best of 3")
    repeat = 1 if parser.parse_args().quick else 3
    rows = {label: (timed(parse_answer, text, repeat), timed(parse_response, text, repeat))
            for label, text in CASES.items()}
    base_mov, base_bd = rows["ordinary prose (baseline)"]
    print(f"{'response':34s} {'chars':>9s} {'movsafebench':>14s} {'ratio':>6s} {'bd_hazardvlm':>14s} {'ratio':>6s}")
    for label, (mov, bd) in rows.items():
        print(f"{label:34s} {len(CASES[label]):9d} {mov * 1000:11.1f} ms {mov / base_mov:6.1f} "
              f"{bd * 1000:11.1f} ms {bd / base_bd:6.1f}")


if __name__ == "__main__":
    main()
