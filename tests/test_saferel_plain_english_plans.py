"""Issue 31 item 6: plain-English numbered plans, with or without periods, multi-word object names and mixed
styles are read; an action-like line that is not used is counted and shown, never dropped silently. Each
expected plan is written out by hand."""

from __future__ import annotations

from eval_kit.saferelbench.actions import Action
from eval_kit.saferelbench.plan_parser import parse_plan

RAG, CT, SQUASH = "rag.n.01_1", "countertop.n.01_1", "butternut_squash.n.01_1"
SINK, TOWEL, STOVE = "sink.n.01_1", "paper_towel.n.01_1", "stove.n.01_1"
OBJ = {RAG: "rag.n.01", CT: "countertop.n.01", SQUASH: "butternut_squash.n.01", SINK: "sink.n.01",
       TOWEL: "paper_towel.n.01", STOVE: "stove.n.01", "agent.n.01_1": "agent.n.01"}


def A(name, *args):
    return Action(name, tuple(args))


def test_numbered_sentences_with_trailing_periods():
    parsed = parse_plan("1. Navigate to the rag.\n2. Grasp the rag.\n3. Navigate to the countertop.\n"
                        "4. Place the rag on the countertop.", OBJ)
    assert parsed.actions == [A("NAVIGATE_TO", RAG), A("GRASP", RAG), A("NAVIGATE_TO", CT),
                              A("PLACE_ON_TOP", RAG, CT)]
    assert parsed.unparsed_lines == 0 and parsed.error is None


def test_numbered_sentences_without_periods_and_with_a_pronoun():
    parsed = parse_plan("1) grasp the rag\n2) navigate to the sink\n3) place it in the sink", OBJ)
    # "it" is the object in hand: a one-argument place, which the executor completes with the held rag
    assert parsed.actions == [A("GRASP", RAG), A("NAVIGATE_TO", SINK), A("PLACE_INSIDE", SINK)]
    assert parsed.unparsed_lines == 0


def test_multi_word_object_names_resolve_to_the_samples_instances():
    parsed = parse_plan("1. Pick up the butternut squash.\n2. Put the butternut squash on the countertop.\n"
                        "3. Grasp the paper towel", OBJ)
    assert parsed.actions == [A("GRASP", SQUASH), A("PLACE_ON_TOP", SQUASH, CT), A("GRASP", TOWEL)]


def test_mixed_styles_within_one_answer():
    text = ("Here is my plan:\n"
            "1. NAVIGATE_TO(stove)\n"
            "2. Turn off the stove.\n"
            "3. GRASP(butternut squash)\n"
            "- place it on the countertop\n"
            "Step 5: RELEASE()")
    parsed = parse_plan(text, OBJ)
    assert parsed.actions == [A("NAVIGATE_TO", STOVE), A("TOGGLE_OFF", STOVE), A("GRASP", SQUASH),
                              A("PLACE_ON_TOP", CT), A("RELEASE")]
    # the introduction is prose around the plan: ignored, not unparsed
    assert parsed.unparsed_lines == 0 and parsed.ignored_lines == 1


def test_an_action_like_line_that_is_not_used_is_counted_and_shown():
    text = "1. Grasp the rag.\n2. Grasp the blue sponge.\n3. Place the rag on the countertop."
    parsed = parse_plan(text, OBJ)
    # "blue sponge" is no object of the sample: the line is kept out of the plan, counted and shown
    assert parsed.actions == [A("GRASP", RAG), A("PLACE_ON_TOP", RAG, CT)]
    assert parsed.unparsed_lines == 1 and parsed.unparsed == ("2. Grasp the blue sponge.",)


def test_the_runs_report_shows_the_unused_lines():
    from pathlib import Path

    from eval_kit.saferelbench.episode import read_plan, run_episode
    from eval_kit.saferelbench.report import render_tables
    from eval_kit.saferelbench.samples import load_samples
    from eval_kit.saferelbench.scoring import episode_scores

    demo = Path(__file__).resolve().parents[1] / "manifests" / "saferelbench" / "demo.jsonl"
    sample = next(iter(load_samples(demo).values()))
    first = sample.reference_plan[0]
    parsed = read_plan(sample, None, f"1. {first}\n2. Grasp the blue sponge.")
    result, _ = run_episode(sample, parsed.actions, parse_error=parsed.error, unparsed_lines=parsed.unparsed_lines,
                            unparsed=parsed.unparsed)
    # one step read, one action-like line not used: counted in the episode, listed in the scores, printed
    assert parsed.actions == [first] and result.to_json()["unparsed"] == ["2. Grasp the blue sponge."]
    scores = episode_scores([result], [sample])
    assert scores["unparsed_lines"] == 1
    assert scores["unparsed_examples"] == [{"id": sample.id, "variant": "base", "lines": ["2. Grasp the blue sponge."]}]
    text = render_tables({"plans": {**scores, "missing": 0}})
    assert "1 plan line(s) looked like actions" in text and "2. Grasp the blue sponge." in text
