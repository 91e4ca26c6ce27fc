"""Issue 36 item 1 (helper branch issue36e): FastVLM, GLM-5 next, glmga, Granite 4 Vision, HunYuan-VL, HY-V4-VL.

The families that run have a tiny checkpoint of their REAL transformers 5.24 classes
(eval_kit/testing/tiny_families_recent_d.py) that goes through `hazardkit eval --backend transformers` on all
three benchmarks with the shared checks of tests/test_model_families.py (exit 0, the template's assistant turn
in the prompt, image tokens and pixels reaching the model, answers recorded, the auto class and no remote code).
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from eval_kit.runners import families
from eval_kit.testing.synthetic_datasets import write_jsonl
from eval_kit.testing.tiny_families_recent_d import FAMILIES, TEMPLATE_MARK, build
from tests import test_model_families as base


@pytest.fixture(scope="module")
def movsafe_data(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("movsafe"), 1, seed=4)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("families_recent_d")
    return {family: build(family, root / family) for family in FAMILIES}


def test_every_family_has_a_mark():
    assert set(TEMPLATE_MARK) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_runs_on_every_benchmark(family, checkpoints, movsafe_data, tmp_path, monkeypatch):
    entry = families.FAMILIES[family]
    assert entry.refused is None and entry.note != families.UNTESTED
    base.check_runs_on_every_benchmark(family, checkpoints[family], TEMPLATE_MARK[family], movsafe_data, tmp_path,
                                       monkeypatch)
