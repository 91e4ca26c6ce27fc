"""Llama 4 without torchvision (issue 36): the PIL port of its image processor against the reference algorithm
(transformers 5.24's torchvision `Llama4ImageProcessor`) on hand-checked cases, and a tiny
`Llama4ForConditionalGeneration` through `hazardkit eval` on all three benchmarks (the shared checks of
tests/test_model_families.py)."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch
from PIL import Image

from eval_kit.runners import llama4_image_processor as port
from eval_kit.runners.families import FAMILIES as TABLE
from eval_kit.testing.synthetic_datasets import write_jsonl
from eval_kit.testing.tiny_families_llama4 import TEMPLATE_MARK, build
from tests import test_model_families as base


def test_supported_resolutions_in_transformers_order():
    # the reference's docstring example: max_num_chunks=4 groups {0.25: [(1,4)], 1.0: [(2,2),(1,1)], 4.0: [(4,1)],
    # 0.33: [(1,3)], 3.0: [(3,1)], 0.5: [(1,2)], 2.0: [(2,1)]}, each multiplied by the tile
    assert port.supported_resolutions(4, 224) == [(224, 896), (448, 448), (224, 224), (896, 224), (224, 672),
                                                  (672, 224), (224, 448), (448, 224)]


def test_best_fit_reference_examples():
    # the reference's docstring: (200, 300) among these -> [224, 448] (scale 1.12, the smaller of two areas)
    resolutions = [(224, 672), (672, 224), (224, 448), (448, 224), (224, 224)]
    assert port.best_fit(200, 300, resolutions) == (224, 448)
    # no upscale possible: the least downscale; 1000 x 300 (h x w) fits (896, 224) at 0.747 (> 0.672 for 672)
    assert port.best_fit(1000, 300, port.supported_resolutions(4, 224)) == (896, 224)
    # resize_to_max_canvas: the largest upscale; a 100 x 100 image -> (448, 448) at 4.48
    assert port.best_fit(100, 100, port.supported_resolutions(4, 224), to_max_canvas=True) == (448, 448)


def test_fit_without_distortion_reference_examples():
    assert port.fit_without_distortion(200, 300, 450, 200) == (133, 200)  # floor(200 * 200/300) = 133
    assert port.fit_without_distortion(800, 600, 450, 1300) == (450, 337)  # floor(600 * 450/800) = 337


def test_plan_never_upscales_past_the_image_unless_asked():
    # 60 x 100 (h x w), 56-px tiles, at most 4: canvas 112 x 112 (the only scale >= 1: 1.12); the image keeps
    # its own size (limit min(max(60, 56), 112) x min(max(100, 56), 112) = 60 x 100)
    assert port.plan(60, 100, 56, 4) == ((60, 100), (112, 112))
    # asked to fill the canvas: 100 wide -> 112, height floor(60 * 1.12) = 67
    assert port.plan(60, 100, 56, 4, to_max_canvas=True) == ((67, 112), (112, 112))
    # a small image (20 x 30): canvas 56 x 56 (scale 1.87), upscaled to one tile: 37 x 56 (floor(20 * 56/30))
    assert port.plan(20, 30, 56, 4) == ((37, 56), (56, 56))


def _processor(**kwargs):
    return port.processor_class()(size={"height": 56, "width": 56}, max_patches=4, **kwargs)


def test_pixels_tiles_padding_and_normalisation():
    """A 100 x 60 (w x h) image, white where x < 50, black elsewhere: canvas 112 x 112 (see the plan test), the
    image kept at its size, black padding right and bottom, 2 x 2 tiles row by row, then the global view.
    Values in bfloat16 as the reference's: white 255 -> 1.0, black 0 -> -1.0, and grey 128: 128/255 = 0.501961
    rounds in bfloat16 (8 significant bits: steps of 2^-8 in [0.5, 1)) to 0.50390625 (0.001945 away; 0.5 is
    0.001961 away), then (0.50390625 - 0.5) / 0.5 = 0.0078125 (float32 would give 0.0039216)."""
    image = Image.new("RGB", (100, 60), (0, 0, 0))
    image.paste((255, 255, 255), (0, 0, 50, 60))
    out = _processor()([image], return_tensors="pt")
    pixels = out["pixel_values"]
    assert pixels.shape == (5, 3, 56, 56) and pixels.dtype == torch.bfloat16
    assert out["aspect_ratios"].tolist() == [[2, 2]]
    top_left, top_right, bottom_left, bottom_right, whole = pixels
    assert torch.all(top_left[:, :, :50] == 1.0) and torch.all(top_left[:, :, 50:] == -1.0)
    assert torch.all(top_right == -1.0) and torch.all(bottom_right == -1.0)  # black image, then padding
    assert torch.all(bottom_left[:, :4, :50] == 1.0)  # image rows 56-59
    assert torch.all(bottom_left[:, :4, 50:] == -1.0) and torch.all(bottom_left[:, 4:] == -1.0)  # padding
    # the global view squeezes 100 px into 56: white up to about x = 28, black after
    assert torch.all(whole[:, :, :24] == 1.0) and torch.all(whole[:, :, 32:] == -1.0)
    grey = _processor()([Image.new("RGB", (56, 56), (128, 128, 128))], return_tensors="pt")["pixel_values"]
    assert grey.shape == (1, 3, 56, 56)  # one tile: no global view
    assert torch.all(grey == 0.0078125)
    # without return_tensors: one (tiles, 3, 56, 56) tensor per image
    listed = _processor()([image, Image.new("RGB", (56, 56))])
    assert [tuple(p.shape) for p in listed["pixel_values"]] == [(5, 3, 56, 56), (1, 3, 56, 56)]
    assert listed["aspect_ratios"].tolist() == [[2, 2], [1, 1]]


def test_resize_then_pad_for_a_large_image():
    """A white 250 x 100 (w x h) image, 56-px tiles, at most 4. Scales min(canvas h / 100, canvas w / 250):
    56 x 224 -> 0.56, 56 x 168 -> 0.56, 56 x 112 -> 0.448, 112 x 112 -> 0.448, the rest lower; none >= 1, so
    the least downscale, 0.56, and of its two canvases the smaller, 56 x 168 (1 x 3 tiles). Resized to fit it:
    height 56, width floor(250 * 0.56) = 140; padded black from x = 140 to 168."""
    assert port.plan(100, 250, 56, 4) == ((56, 140), (56, 168))
    out = _processor()([Image.new("RGB", (250, 100), (255, 255, 255))], return_tensors="pt")
    assert out["aspect_ratios"].tolist() == [[1, 3]] and out["pixel_values"].shape == (4, 3, 56, 56)
    tiles = out["pixel_values"]
    assert torch.all(tiles[0] == 1.0) and torch.all(tiles[1] == 1.0)
    assert torch.all(tiles[2][:, :, :28] == 1.0) and torch.all(tiles[2][:, :, 28:] == -1.0)  # x 112-139, 140+
    assert torch.all(tiles[3] == 1.0)  # the global view: the whole (white) image


def test_image_tokens_in_the_text(tmp_path):
    """`Llama4Processor` with the port: 4 <|patch|> per 56-px tile ((56/14)^2 / 4 after the pixel shuffle);
    2 x 2 tiles with separators, then <|image|> and the global view's 4."""
    checkpoint = build(tmp_path / "llama4")
    from eval_kit.runners.backends import model_loading

    processor = model_loading.load_processor(str(checkpoint.folder), None, {})
    assert type(processor.image_processor).__name__ == "Llama4ImageProcessorPil"
    messages = [[{"role": "user", "content": [{"type": "image", "image": Image.new("RGB", (100, 60))},
                                              {"type": "text", "text": "hi"}]}]]
    batch = processor.apply_chat_template(messages, tokenize=True, add_generation_prompt=True, return_dict=True,
                                          return_tensors="pt")
    text = processor.tokenizer.decode(batch["input_ids"][0])
    four = "<|patch|>" * 4
    expected = (f"<|image_start|>{four}<|tile_x_separator|>{four}<|tile_y_separator|>{four}<|tile_x_separator|>"
                f"{four}<|tile_y_separator|><|image|>{four}<|image_end|>hi<|eot|>")
    assert expected in text and text.endswith(TEMPLATE_MARK)
    assert batch["pixel_values"].shape == (5, 3, 56, 56)


def test_llama4_runs_on_every_benchmark(tmp_path, monkeypatch):
    assert TABLE["llama4"].refused is None
    checkpoint = build(tmp_path / "llama4")
    base.check_runs_on_every_benchmark("llama4", checkpoint, TEMPLATE_MARK, write_jsonl(tmp_path / "movsafe", 1,
                                                                                         seed=4),
                                       tmp_path, monkeypatch)


def test_bug_workaround_only_for_llama4():
    """transformers 5.24's Llama4ForConditionalGeneration.forward reads `image_outputs` from its language
    model's output, which has none: the loader adds a hook to Llama 4's language model only."""
    from transformers import LlavaConfig, LlavaForConditionalGeneration

    from eval_kit.runners.backends.model_loading import work_around_known_bugs

    other = LlavaForConditionalGeneration(LlavaConfig(
        vision_config={"model_type": "clip_vision_model", "hidden_size": 16, "intermediate_size": 32,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28, "patch_size": 14},
        text_config={"model_type": "llama", "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "vocab_size": 64}))
    assert work_around_known_bugs(other) is other
    assert not any(module._forward_hooks for module in other.modules())
