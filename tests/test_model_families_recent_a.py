"""Issue 36 item 1 (helper b): more transformers VLM families, run or refused.

Apertus 1.5, Gemma 4 unified, Inkling 2 and Inkling 2 loop have no PIL image processor in the pinned
transformers (5.24): the image-processor auto mapping names only a torchvision class. Without torchvision they
cannot preprocess an image, so `FAMILIES` refuses them with that cause; the one-line, exit-2 refusal before any
load is checked for every refused family by
tests/test_model_families_all.py::test_refused_family_is_one_line_before_loading.
EXAONE 4.5 and HyperCLOVA X Vision v2 run: a tiny checkpoint of each one's real classes
(eval_kit/testing/tiny_families_recent_a.py) goes through `eval` on all three benchmarks with the checks of
tests/test_model_families.py. The other families of this helper's list are not yet covered here.
"""

from __future__ import annotations

import pytest

from eval_kit.runners import families
from eval_kit.testing import tiny_families_recent_a as tiny
from tests import test_model_families as base

TORCHVISION_ONLY = ("apertus1p5", "gemma4_unified", "inkling2", "inkling2_loop")


@pytest.mark.parametrize("model_type", TORCHVISION_ONLY)
def test_torchvision_only_family_is_refused_naming_torchvision(model_type):
    from transformers.models.auto import image_processing_auto

    classes = image_processing_auto.IMAGE_PROCESSOR_MAPPING_NAMES[model_type]
    assert set(classes) == {"torchvision"}, classes  # no PIL version: the cause is real
    family = families.FAMILIES[model_type]
    assert family.refused == families.TORCHVISION and family.fix == families.TV_FIX
    assert model_type in families.native_families()


movsafe_data, checkpoints, test_family_runs_on_every_benchmark = base.family_tests(
    tiny.FAMILIES, tiny.build, tiny.TEMPLATE_MARK, name="families_recent_a")
