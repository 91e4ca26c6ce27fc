"""GPU smoke run: real-size random-weight models through hazardkit's own backends (the body of gpu_smoke.sh).

On a machine with an NVIDIA GPU and no internet, it builds (configs in benchmarks/gpu_configs/, no weights
downloaded):
  1. a Qwen2.5-VL-7B-shaped model folder (config + byte-level tokenizer + image processor + chat template)
     and runs `hazardkit eval movsafebench -b transformers` on demo-like data, the weights random
     (`from_pretrained` is pointed at `from_config`, the counterpart of vLLM's dummy loader);
  2. one FLUX.1-Fill-dev-shaped edit (transformer, VAE, CLIP-L, T5-XXL from their configs) through
     HazardForge's FluxFillEditor;
  3. the same eval with `-b vllm --model-args load_format=dummy,...`;
  4. the transformers eval again at fixed batch sizes (16, 32, 64) and at `--batch-size auto` (the largest batch
     that fits, halving on CUDA out-of-memory), printing each samples/s and the size auto chose;
and prints samples/s, peak GPU memory and the vLLM / transformers throughput ratio.

`--cpu-check` runs the same steps on CPU with tiny configs (seconds; `make test` runs it). A step that cannot
run (no vLLM installed, no GPU for vLLM) prints SKIPPED and the reason; it never pretends to have run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "gpu_configs"
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
            "<|image_pad|>", "<|video_pad|>"]
TOKEN_FIELDS = {"bos_token_id": "<|endoftext|>", "pad_token_id": "<|endoftext|>", "eos_token_id": "<|im_end|>",
                "vision_start_token_id": "<|vision_start|>", "vision_end_token_id": "<|vision_end|>",
                "vision_token_id": "<|vision_pad|>", "image_token_id": "<|image_pad|>",
                "video_token_id": "<|video_pad|>"}


def log(text: str) -> None:
    print(text, flush=True)


def model_folder(config_name: str, out: Path, *, max_pixels: int) -> Path:
    """config.json (token ids set to the built tokenizer's), tokenizer, PIL image processor, chat template."""
    from transformers import Qwen2Tokenizer
    from transformers.convert_slow_tokenizer import bytes_to_unicode
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    from eval_kit.testing.tiny_vlm import CHAT_TEMPLATE

    out.mkdir(parents=True, exist_ok=True)
    tok = Qwen2Tokenizer(vocab={c: i for i, c in enumerate(bytes_to_unicode().values())}, merges=[],
                         unk_token=None, bos_token=None)
    tok.add_special_tokens({"additional_special_tokens": SPECIALS})
    tok.pad_token, tok.eos_token = "<|endoftext|>", "<|im_end|>"
    tok.chat_template = CHAT_TEMPLATE
    tok.save_pretrained(out)
    Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=max_pixels).save_pretrained(out)
    config = json.loads((CONFIGS / config_name / "config.json").read_text())
    ids = {field: tok.convert_tokens_to_ids(token) for field, token in TOKEN_FIELDS.items()}
    config.update(ids)
    assert max(ids.values()) < config["vocab_size"]
    (out / "config.json").write_text(json.dumps(config, indent=2))
    (out / "generation_config.json").write_text(json.dumps({"bos_token_id": ids["bos_token_id"],
                                                            "eos_token_id": ids["eos_token_id"],
                                                            "pad_token_id": ids["pad_token_id"]}))
    return out


@contextlib.contextmanager
def random_weights(device: str):
    """`AutoModelForImageTextToText.from_pretrained(folder)` builds the folder's architecture with random weights."""
    import torch
    from transformers import AutoConfig, AutoModelForImageTextToText

    original = AutoModelForImageTextToText.from_pretrained

    def build(model: str, *args: Any, revision: str | None = None, dtype: Any = None, device_map: Any = None,
              **kwargs: Any) -> Any:
        from transformers import GenerationConfig

        config = AutoConfig.from_pretrained(model)
        if dtype in (None, "auto"):
            dtype = torch.bfloat16 if device == "cuda" else torch.float32
        extra = {k: v for k, v in kwargs.items() if k == "attn_implementation"}
        with torch.device(device):
            built = AutoModelForImageTextToText.from_config(config, dtype=dtype, **extra)
        built.generation_config = GenerationConfig.from_pretrained(model)
        return built

    AutoModelForImageTextToText.from_pretrained = build
    try:
        yield
    finally:
        AutoModelForImageTextToText.from_pretrained = original


def peak_gib(torch: Any, gpu: bool) -> str:
    return f"{torch.cuda.max_memory_allocated() / 2**30:.1f} GiB" if gpu else "n/a (CPU)"


def run_eval(backend: str, model: Path, data: Path, out: Path, args: argparse.Namespace, *,
             batch_size: int | str | None = None, **options: Any) -> Any:
    from eval_kit import registry
    from eval_kit.runners import harness
    from eval_kit.runners.backends.factory import make_backend

    task = registry.make_task("movsafebench", data=data, config="demo")
    engine = make_backend(backend, str(model), task, max_new_tokens=args.max_new_tokens, max_pixels=args.max_pixels,
                          **options)
    return harness.run(task, engine, out, model=model.name, batch_size=batch_size or args.batch_size, progress=False)


def mean_chars(out: Path) -> float:
    """Mean answer length in characters (random weights: ids outside the small test vocabulary decode to
    nothing, so this only shows whether answers were produced, not how many tokens were generated)."""
    responses = [json.loads(x).get("response") or "" for x in (out / "raw.jsonl").read_text().splitlines()]
    return sum(len(r) for r in responses) / max(1, len(responses))


def step_transformers(args, torch, gpu: bool, model: Path, data: Path, work: Path) -> float | None:
    torch.cuda.reset_peak_memory_stats() if gpu else None
    started = time.perf_counter()
    with random_weights("cuda" if gpu else "cpu"):
        summary = run_eval("transformers", model, data, work / "run-transformers", args,
                           device=None if gpu else "cpu",
                           model_args={"dtype": "bfloat16" if gpu else "float32", "attn_implementation": "sdpa"})
    rate = summary.samples_per_second
    log(f"transformers: {summary.generated} samples, {rate:.2f} samples/s (batch {args.batch_size}, "
        f"mean answer {mean_chars(work / 'run-transformers'):.0f} chars), peak GPU memory "
        f"{peak_gib(torch, gpu)}, {time.perf_counter() - started:.0f} s with model build; failed {summary.failed}")
    if summary.failed:
        log(f"  first failure: {summary.failures[0]['error']}")
    if gpu:
        import gc

        gc.collect()
        torch.cuda.empty_cache()
    return rate if summary.generated else None


def step_batches(args, torch, gpu: bool, model: Path, data: Path, work: Path) -> None:
    """samples/s of the transformers eval at each of `--batch-sizes` (a fresh run folder each), `auto` included."""
    rates: dict[str, float] = {}
    for size in args.batch_sizes:
        torch.cuda.reset_peak_memory_stats() if gpu else None
        out = work / f"run-batch-{size}"
        with random_weights("cuda" if gpu else "cpu"):
            summary = run_eval("transformers", model, data, out, args, batch_size=size,
                               device=None if gpu else "cpu",
                               model_args={"dtype": "bfloat16" if gpu else "float32", "attn_implementation": "sdpa"})
        used = json.loads((out / "metadata.json").read_text()).get("batch_size")
        rates[size] = summary.samples_per_second
        log(f"batch {size}: {summary.generated} samples, {summary.samples_per_second:.2f} samples/s, batch used "
            f"{used}, peak GPU memory {peak_gib(torch, gpu)}; failed {summary.failed}")
        if gpu:
            import gc

            gc.collect()
            torch.cuda.empty_cache()
    fixed = {k: v for k, v in rates.items() if k != "auto"}
    if "auto" in rates and fixed:
        best = max(fixed, key=fixed.get)
        log(f"batch auto / best fixed (batch {best}): {rates['auto'] / fixed[best]:.2f}x")


def flux_pipeline(gpu: bool, torch: Any) -> Any:
    if not gpu:
        from eval_kit.testing.tiny_diffusion import tiny_flux_fill

        return tiny_flux_fill()
    from diffusers import AutoencoderKL, FlowMatchEulerDiscreteScheduler, FluxFillPipeline, FluxTransformer2DModel
    from transformers import CLIPTextConfig, CLIPTextModel, T5Config, T5EncoderModel

    from eval_kit.testing.tiny_diffusion import tiny_clip, tiny_t5

    folder = CONFIGS / "flux_fill_dev"
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)  # built in bf16 on the GPU directly: no fp32 copy of 17B parameters
    try:
        with torch.device("cuda"):
            transformer = FluxTransformer2DModel.from_config(
                FluxTransformer2DModel.load_config(folder / "transformer"))
            vae = AutoencoderKL.from_config(AutoencoderKL.load_config(folder / "vae"))
            clip = CLIPTextModel(CLIPTextConfig.from_json_file(folder / "text_encoder" / "config.json"))
            t5 = T5EncoderModel(T5Config.from_json_file(folder / "text_encoder_2" / "config.json"))
    finally:
        torch.set_default_dtype(default)
    _, clip_tok = tiny_clip()  # in-memory tokenizers: the real ones are not in the repository
    _, t5_tok = tiny_t5()
    pipe = FluxFillPipeline(scheduler=FlowMatchEulerDiscreteScheduler(), vae=vae, text_encoder=clip,
                            tokenizer=clip_tok, text_encoder_2=t5, tokenizer_2=t5_tok, transformer=transformer)
    pipe = pipe.to("cuda", torch.bfloat16)
    pipe.set_progress_bar_config(disable=True)
    return pipe


def step_diffusers(args, torch, gpu: bool) -> None:
    import numpy as np
    from PIL import Image

    from builder.movsafebench.hazardforge.editors import FluxFillEditor

    try:
        import diffusers  # noqa: F401
    except ImportError:
        log('diffusers FluxFill edit: SKIPPED (diffusers is not installed: pip install "hazardkit[models]")')
        return
    torch.cuda.reset_peak_memory_stats() if gpu else None
    started = time.perf_counter()
    pipe = flux_pipeline(gpu, torch)
    built = time.perf_counter() - started
    held = f"{torch.cuda.memory_allocated() / 2**30:.1f} GiB of weights, " if gpu else ""
    torch.cuda.reset_peak_memory_stats() if gpu else None
    width, height = (1600, 900) if gpu else (80, 45)
    image = Image.fromarray(np.random.default_rng(0).integers(0, 255, (height, width, 3), dtype=np.uint8))
    mask = np.zeros((height, width), bool)
    mask[height // 3: 2 * height // 3, width // 3: 2 * width // 3] = True
    editor = FluxFillEditor("random/flux-fill-dev", device="cuda" if gpu else "cpu",
                            dtype="bfloat16" if gpu else "float32", steps=args.flux_steps, pipeline=pipe)
    edits = []
    for seed in range(2 if gpu else 1):  # on a GPU the first call pays one-off costs; the second is the figure
        t = time.perf_counter()
        out = editor.edit(image, mask, "Render a fallen tree branch lying across the path.", seed=seed)
        edits.append(time.perf_counter() - t)
    changed = (np.asarray(out)[mask] != np.asarray(image)[mask]).mean()
    log(f"diffusers FluxFill edit ({'real-size' if gpu else 'tiny'} FLUX.1-Fill-dev, {width}x{height}, "
        f"{args.flux_steps} steps): {edits[-1]:.2f} s/edit (first {edits[0]:.2f} s, build {built:.0f} s), "
        f"{held}peak GPU memory while editing {peak_gib(torch, gpu)}, {changed:.0%} of masked pixels changed")
    del editor, pipe
    if gpu:
        import gc

        gc.collect()
        torch.cuda.empty_cache()


def step_vllm(args, torch, gpu: bool, model: Path, data: Path, work: Path) -> float | None:
    from eval_kit.runners.backends.setup_checks import installed

    if not installed("vllm"):
        log('vllm: SKIPPED (vllm is not installed here: pip install "hazardkit[vllm]"); no vLLM figure and no '
            "vLLM/transformers ratio")
        return None
    if not gpu:
        log("vllm: SKIPPED (no CUDA GPU: the smoke test runs vLLM on a GPU only)")
        return None
    model_args = {"load_format": "dummy", "gpu_memory_utilization": args.gpu_memory_utilization,
                  "max_model_len": args.max_model_len, "dtype": "bfloat16"}
    started = time.perf_counter()
    summary = run_eval("vllm", model, data, work / "run-vllm", args, model_args=model_args)
    free, total = torch.cuda.mem_get_info()
    log(f"vllm: {summary.generated} samples, {summary.samples_per_second:.2f} samples/s (batch {args.batch_size}, "
        f"mean answer {mean_chars(work / 'run-vllm'):.0f} chars), GPU memory held (device-wide, includes "
        f"the KV-cache reservation of gpu_memory_utilization={args.gpu_memory_utilization}) "
        f"{(total - free) / 2**30:.1f} GiB, {time.perf_counter() - started:.0f} s with engine start; "
        f"failed {summary.failed}")
    return summary.samples_per_second if summary.generated else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu-check", action="store_true", help="tiny configs on CPU (what `make test` runs)")
    parser.add_argument("--quick", action="store_true", help="the same as --cpu-check (the benchmark runner's name)")
    parser.add_argument("--n", type=int, default=None, help="samples (default 64 on a GPU, 4 with --cpu-check)")
    parser.add_argument("--batch-size", type=int, default=None, help="default 16 on a GPU, 2 with --cpu-check")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="default 64 on a GPU, 4 with --cpu-check")
    parser.add_argument("--max-pixels", type=int, default=None, help="default 1024*28*28 on a GPU")
    parser.add_argument("--flux-steps", type=int, default=None, help="default 8 on a GPU, 2 with --cpu-check")
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.85)
    parser.add_argument("--max-model-len", type=int, default=8192)
    parser.add_argument("--batch-sizes", default=None,
                        help="the batch-size step's sizes, comma-separated, auto included (default 16,32,64,auto on a "
                             "GPU, 2,auto with --cpu-check)")
    parser.add_argument("--skip", action="append", default=[],
                        choices=["transformers", "diffusers", "vllm", "batches"])
    parser.add_argument("--keep", type=Path, default=None, help="keep the model folder and runs here")
    args = parser.parse_args()
    cpu = args.cpu_check or args.quick
    args.n = args.n or (4 if cpu else 64)
    args.batch_size = args.batch_size or (2 if cpu else 16)
    args.max_new_tokens = args.max_new_tokens or (4 if cpu else 64)
    args.max_pixels = args.max_pixels or (56 * 56 if cpu else 1024 * 28 * 28)
    args.flux_steps = args.flux_steps or (2 if cpu else 8)
    args.batch_sizes = [x.strip() for x in (args.batch_sizes or ("2,auto" if cpu else "16,32,64,auto")).split(",")]

    import torch

    gpu = not cpu
    if gpu and not torch.cuda.is_available():
        log("gpu_smoke: torch sees no CUDA GPU; run with --cpu-check for the CPU check")
        return 2
    from eval_kit.testing.synthetic_datasets import write_parquet_folder

    device = torch.cuda.get_device_name(0) if gpu else "CPU"
    mode = "CPU check, tiny configs" if cpu else "real-size configs"
    log(f"gpu_smoke ({mode}) on {device}; torch {torch.__version__}")
    work = args.keep or Path(tempfile.mkdtemp(prefix="hazardkit-gpu-smoke-"))
    try:
        size = (96, 54) if cpu else (1600, 900)
        data = write_parquet_folder(work / "data", args.n, seed=0, size=size)
        model = model_folder("tiny_qwen2_5_vl" if cpu else "qwen2_5_vl_7b", work / ("tiny-qwen2.5-vl" if cpu
                             else "qwen2.5-vl-7b-random"), max_pixels=args.max_pixels)
        log(f"data: {args.n} demo-like MovSafeBench rows at {size[0]}x{size[1]}; model folder {model} "
            f"({'tiny' if cpu else 'Qwen2.5-VL-7B-shaped'}, random weights); max {args.max_new_tokens} new tokens")
        hf_rate = None if "transformers" in args.skip else step_transformers(args, torch, gpu, model, data, work)
        if "diffusers" not in args.skip:
            step_diffusers(args, torch, gpu)
        vllm_rate = None if "vllm" in args.skip else step_vllm(args, torch, gpu, model, data, work)
        if "batches" not in args.skip:
            step_batches(args, torch, gpu, model, data, work)
        if hf_rate and vllm_rate:
            log(f"vLLM / transformers throughput: {vllm_rate / hf_rate:.2f}x")
        else:
            log("vLLM / transformers throughput: not measured (a step was skipped)")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    sys.exit(main())
