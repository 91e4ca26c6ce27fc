"""Issue 36 (fourth batch, branch issue36d): each family with a tiny checkpoint in
eval_kit/testing/tiny_families_recent_c.py runs `hazardkit eval --backend transformers` on all three benchmarks
with its images reaching the model (the shared checks of tests/test_model_families.py)."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from eval_kit.runners.families import FAMILIES as TABLE
from eval_kit.testing.synthetic_datasets import write_jsonl
from eval_kit.testing.tiny_families_recent_c import FAMILIES, TEMPLATE_MARK, build
from tests import test_model_families as base


@pytest.fixture(scope="module")
def movsafe_data(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("movsafe"), 1, seed=4)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("families_c")
    return {family: build(family, root / family) for family in FAMILIES}


def test_every_family_has_a_mark_and_runs_in_the_table():
    assert set(TEMPLATE_MARK) == set(FAMILIES)
    assert all(TABLE[family].refused is None and not TABLE[family].note.startswith("not yet checked")
               for family in FAMILIES)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_runs_on_every_benchmark(family, checkpoints, movsafe_data, tmp_path, monkeypatch):
    base.check_runs_on_every_benchmark(family, checkpoints[family], TEMPLATE_MARK[family], movsafe_data, tmp_path,
                                       monkeypatch)
