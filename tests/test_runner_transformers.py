"""transformers backend with a tiny random-weight Qwen2.5-VL (the real classes) built from a config on CPU.

Qwen2-VL-family processors want a video processor, and transformers' video processors need a torchvision
that matches torch (none does beside the CPU torch 2.13.0 file). The folder is saved with the tokenizer and
the PIL image processor only, as a checkpoint looks to a machine without torchvision: the backend then
builds the image-only processor (eval_kit/runners/qwen_image_processor.py).
"""

import json

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from click.testing import CliRunner  # noqa: E402

from builder.cli import cli  # noqa: E402
from eval_kit import registry  # noqa: E402
from eval_kit.testing.synthetic_datasets import write_jsonl  # noqa: E402

SPECIALS = ["<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>",
            "<|endoftext|>"]
TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory):
    """A Qwen2.5-VL with 1 text layer, 1 vision block, hidden size 32, saved with its processor."""
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2Tokenizer,
    )
    from transformers.convert_slow_tokenizer import bytes_to_unicode
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    tok = Qwen2Tokenizer(vocab={c: i for i, c in enumerate(bytes_to_unicode().values())}, merges=[])
    tok.add_special_tokens({"additional_special_tokens": SPECIALS})
    tok.pad_token, tok.eos_token = "<|endoftext|>", "<|im_end|>"
    ids = {t: tok.convert_tokens_to_ids(t) for t in SPECIALS}
    tok.chat_template = TEMPLATE
    image_processor = Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=112 * 112)
    config = Qwen2_5_VLConfig(
        text_config={"vocab_size": len(tok), "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "num_key_value_heads": 1, "max_position_embeddings": 512,
                     "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
                     "bos_token_id": ids["<|endoftext|>"], "eos_token_id": ids["<|im_end|>"],
                     "pad_token_id": ids["<|endoftext|>"]},
        vision_config={"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "out_hidden_size": 32,
                       "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
                       "fullatt_block_indexes": [0], "window_size": 28},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(0)
    model = Qwen2_5_VLForConditionalGeneration(config).eval()
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    folder = tmp_path_factory.mktemp("tiny-qwen")
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    image_processor.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("data"), 5, seed=2)


def test_batches_are_left_padded_and_images_capped(tiny_qwen, data):
    from eval_kit.runners.backends.hf_transformers import TransformersBackend

    backend = TransformersBackend(str(tiny_qwen), max_new_tokens=3, max_pixels=56 * 56, device="cpu")
    task = registry.make_task("movsafebench", data=data)
    samples = list(task.samples(limit=2))
    samples[1].messages[0]["content"][-1]["text"] += " Think about pedestrians first."  # a longer prompt
    inputs = backend.inputs(samples)
    mask = inputs["attention_mask"]
    assert mask[0, 0] == 0 and mask[:, -1].all()  # the shorter prompt is padded on the left
    assert (inputs["input_ids"][:, -1] == inputs["input_ids"][0, -1]).all()  # both end with the assistant turn
    # 96x54 images capped to 56*56 pixels: a 4x2 grid of 14-px patches at most per image
    grid = inputs["image_grid_thw"]
    assert (grid[:, 1] * grid[:, 2] * 14 * 14 <= 2 * 56 * 56).all()


def test_eval_with_tiny_qwen_is_greedy_and_resumable(tiny_qwen, data, tmp_path):
    args = ["eval", "movsafebench", "--model", str(tiny_qwen), "--backend", "transformers", "--data", str(data),
            "--batch-size", "3", "--max-new-tokens", "4", "--max-pixels", str(56 * 56), "--device", "cpu",
            "--no-progress"]
    first = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    records = [json.loads(x) for x in (tmp_path / "a/raw.jsonl").read_text().splitlines()]
    assert len(records) == 5 and all(isinstance(r["response"], str) for r in records)
    again = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "b")])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "a/raw.jsonl").read_bytes() == (tmp_path / "b/raw.jsonl").read_bytes()  # greedy
    resumed = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "a")])
    assert "0 generated" in resumed.output and "5 resumed" in resumed.output
    meta = json.loads((tmp_path / "a/metadata.json").read_text())
    checkpoint = meta["settings"].pop("checkpoint")  # the folder's own processor config is part of the key
    assert checkpoint["preprocessor_config.json"]["image_processor_type"].startswith("Qwen2VLImageProcessor")
    assert meta["settings"] == {"do_sample": False, "max_new_tokens": 4, "max_pixels": 56 * 56}
