"""MovSafeBench scoring encodes labels with a dict below ARROW_ENCODE_FROM values and with Arrow above: both
give the same codes in the same order, None as -1, and refuse non-strings."""

from __future__ import annotations

import random

import numpy as np
import pytest

from eval_kit.movsafebench import scoring


def test_dict_and_arrow_encodings_agree(monkeypatch):
    rng = random.Random(3)
    values = [rng.choice(["left", "straight", "right", None, "cone", "x" * 50]) for _ in range(5000)]
    small_codes, small_distinct = scoring._dictionary(values)
    monkeypatch.setattr(scoring, "ARROW_ENCODE_FROM", 0)
    arrow_codes, arrow_distinct = scoring._dictionary(values)
    assert small_distinct == arrow_distinct
    assert np.array_equal(small_codes, arrow_codes)
    first = values.index("right")
    assert small_codes[first] == small_distinct.index("right") and (small_codes == -1).sum() == values.count(None)


@pytest.mark.parametrize("bad", [[1, "left"], ["left", ["right"]], [3.5]])
def test_non_strings_are_refused_on_both_paths(bad, monkeypatch):
    with pytest.raises(ValueError, match="must be strings"):
        scoring._codes(bad, ["left", "straight", "right"], "predictions")
    monkeypatch.setattr(scoring, "ARROW_ENCODE_FROM", 0)
    with pytest.raises(ValueError, match="must be strings"):
        scoring._codes(bad, ["left", "straight", "right"], "predictions")
