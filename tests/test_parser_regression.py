"""The answer parsers on the regression sets (tests/parser_regression_cases.py) and on adversarial input.

A confident wrong answer is worse than none: every set is held to zero wrong answers.
"""

import json
import time

import pytest

from benchmarks.parser_regression import bd_verdict, movsafebench_verdict, tally
from eval_kit.bd_hazardvlm import spec as bd_spec
from eval_kit.movsafebench.spec import parse_answer
from eval_kit.responses import bound, fold_punctuation, strip_reasoning
from tests.parser_regression_cases import BD_HAZARDVLM, BD_HAZARDVLM_HELD_OUT, MOVSAFEBENCH, MOVSAFEBENCH_HELD_OUT


def test_sets_are_large_and_varied():
    assert len(MOVSAFEBENCH) >= 60 and len(BD_HAZARDVLM) >= 60
    assert len({r for r, _ in MOVSAFEBENCH}) == len(MOVSAFEBENCH)
    assert {e for _, e in MOVSAFEBENCH} == {"left", "straight", "right", None}
    assert sum(e is None for _, e in BD_HAZARDVLM) >= 8


@pytest.mark.parametrize(("response", "expected"), MOVSAFEBENCH)
def test_movsafebench_regression(response, expected):
    assert parse_answer(response) == expected


def test_movsafebench_held_out_has_no_wrong_answer():
    counts, misses = tally(MOVSAFEBENCH_HELD_OUT, movsafebench_verdict)
    assert counts["wrong"] == 0, misses
    assert counts["correct"] >= 23, misses  # measured: 23 correct, 2 unparsed


def test_bd_hazardvlm_held_out_has_no_wrong_answer():
    counts, misses = tally(BD_HAZARDVLM_HELD_OUT, bd_verdict)
    assert counts["wrong"] == 0 and counts["correct"] == len(BD_HAZARDVLM_HELD_OUT), misses  # measured: 12/0/0


@pytest.mark.parametrize(("response", "expected"), BD_HAZARDVLM)
def test_bd_hazardvlm_regression(response, expected):
    assert bd_verdict(response, expected) == "correct", bd_spec.parse_response(response).prediction


def test_issue_styles():
    """The styles named in the issue, including the two that used to give a confident wrong answer."""
    assert parse_answer('{"answer": "C"}') == "right"
    assert parse_answer("\\boxed{C}") == "right"
    assert parse_answer("答案：C") == parse_answer("选C") == "right"
    assert parse_answer("Options A and C are blocked, so B") == "straight"
    assert parse_answer("left (A)") == "left"
    assert parse_answer("left (C)") is None  # word and letter disagree
    assert parse_answer("Let's analyze each option:\n- A. go left: blocked.\n- B. go straight: clear.\n"
                        "Therefore, the safest direction is B.") == "straight"
    assert parse_answer("There are no indications of the truck turning left or right; it is maintaining a "
                        "straight path ahead.") is None


def test_repaired_json_is_read_scored_and_still_retried():
    raw = dict(zip(bd_spec.OUTPUT_FIELDS, (True, "waterlogging", "latent", "high", ["slow_down"], "water",
                                           False, False), strict=True))
    strict = bd_spec.parse_response(json.dumps(raw))
    assert strict.valid and not strict.repaired
    trailing = bd_spec.parse_response(json.dumps(raw)[:-1] + ",}")
    assert trailing.repaired and not trailing.valid and bd_spec.needs_retry(trailing)
    assert trailing.prediction == strict.prediction
    assert trailing.violations[0][0] == "(response)" and "read after repair" in trailing.violations[0][1]
    cut = bd_spec.parse_response(json.dumps(raw)[:90])  # cut off by the token limit
    assert cut.repaired and cut.prediction["primary_hazard_category"] == "waterlogging"
    assert "severity" not in cut.prediction


def test_reasoning_is_stripped_in_one_scan():
    assert strip_reasoning("<think>a</think>B") == "B"
    assert strip_reasoning("A <think>b</think> C").split() == ["A", "C"]
    assert strip_reasoning("reasoning</think>answer") == "answer"
    assert strip_reasoning("answer <think>unclosed") == "answer"
    assert strip_reasoning("<THINK>x</THINK>y") == "y"
    assert bound("a" * 10 + "b" * 10, 3, 2) == "aaa\nbb"
    assert fold_punctuation("“x”：") == '"x":'


ADVERSARIAL = {
    "280 KB of <think>": "<think>" * 40_000,
    "1 MB of <think>": "<think>" * 150_000,
    "1 MB of </think> then an answer": "</think>" * 125_000 + "B",
    "100k [": "[" * 100_000,
    "1 MB of {": "{" * 1_000_000,
    "1 MB of {}": "{}" * 500_000,
    "brace scan on a long line": '{"evidence": "' + "x" * 1_000_000,
    "1 MB of fences": "```json\n{" * 110_000,
    "1 MB of answer markers": "Answer: " * 125_000,
    "1 MB of option lines": "A. go left\n" * 90_000,
    "go and long whitespace": ("go" + " " * 1000) * 1000,
    "repair bait under the bounds": "{'" + "a'" * 3990,
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_parsers_are_linear_on_adversarial_input(name):
    """Each takes milliseconds (benchmarks/parser_speed.py prints the figures); the bound here only catches a
    quadratic regression, which took minutes on these inputs (1.1 s already on 56 KB of <think> before)."""
    text = ADVERSARIAL[name]
    start = time.perf_counter()
    parse_answer(text)
    bd_spec.parse_response(text)
    assert time.perf_counter() - start < 1.0


def test_bounded_reading_keeps_head_and_tail_answers():
    assert parse_answer("Answer: C\n" + "filler text " * 100_000) == "right"
    assert parse_answer("filler text " * 100_000 + "\nAnswer: A") == "left"
