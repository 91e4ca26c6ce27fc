"""Paper presets: `hazardkit eval BENCH --preset NAME` runs a model the way a paper ran it.

A preset is a named, versioned set of run settings (model id, backend, dtype, quantization, processor
arguments, retry policy, generation settings) for one model row of a paper, with where each setting comes
from. The CLI fills every option the user did not give from the preset, prints a note for each one the user
did give that differs (the user's value wins), and records the preset's name and version in metadata.json
beside the settings it produced. `hazardkit eval --list-presets` prints them all.

What the papers state and what is ours:
- BD-HazardVLM (section 4, Table 3): three models, greedy decoding, each with its stated precision and visual
  budget; the formatting retry for MiniCPM-V-4.6 only. The checkpoints are the papers' models in their
  transformers-native (`-hf`) form, which is our choice where the paper names no repository.
- MovSafeBench (section 4.2.1): seven models, no decoding, precision or resolution settings stated; the
  presets use the model's own processor defaults, bfloat16, `device_map=auto` (the paper ran each
  evaluation on 4 H100s), greedy decoding and 256 new tokens (our documented defaults), and its model sizes.
- SafeRelBench (its summary: seven agents, three prompt variants): only the model names are stated. The
  open text LLMs run as their Instruct / chat checkpoints through transformers (`--backend vllm` works the
  same); the API models through the OpenAI-compatible backend at each provider's OpenAI-compatible endpoint,
  the key read from the provider's usual environment variable. Greedy, 1,024 new tokens (a plan is tens of
  steps), bfloat16 and `device_map=auto`: ours.

Bump a preset's `version` whenever one of its settings changes: the version is recorded with every run.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from eval_kit.errors import BadInput

BD_PAPER = "BD-HazardVLM paper, section 4 and Table 3"
MOVSAFE_PAPER = "MovSafeBench paper, section 4.2.1 (model list and hardware only)"
SAFEREL_PAPER = "SafeRelBench paper (seeds/saferelbench-summary.txt: the seven agents; model names only)"


@dataclass(frozen=True)
class Preset:
    """One paper model row. `stated` lists the settings the paper states; the rest are documented defaults."""

    name: str
    version: str
    benchmark: str  # CLI spelling of the benchmark it reproduces
    paper_model: str  # the row's name in the paper
    model: str  # Hub id (transformers-native checkpoint)
    source: str
    stated: tuple[str, ...]  # which of the settings below the paper states
    backend: str = "transformers"
    model_args: dict[str, Any] = field(default_factory=dict)
    processor_args: dict[str, Any] = field(default_factory=dict)
    gen_kwargs: dict[str, Any] = field(default_factory=dict)
    max_new_tokens: int = 256
    retry: str | None = None  # BD-HazardVLM only
    note: str = ""
    base_url: str | None = None  # the openai backend: the provider's OpenAI-compatible endpoint
    api_key_env: str | None = None  # ... and the environment variable holding its key (never the key itself)

    def options(self) -> dict[str, Any]:
        """The CLI options this preset sets (option name -> value), as the eval command reads them."""
        options: dict[str, Any] = {"model": self.model, "backend": self.backend,
                                   "max_new_tokens": self.max_new_tokens, "model_args": dict(self.model_args),
                                   "processor_args": dict(self.processor_args), "gen_kwargs": dict(self.gen_kwargs)}
        if self.retry is not None:
            options["retry"] = self.retry
        for name in ("base_url", "api_key_env"):
            if getattr(self, name) is not None:
                options[name] = getattr(self, name)
        return options

    def record(self) -> dict[str, Any]:
        """What metadata.json keeps of the preset (its settings are recorded as the run's own settings)."""
        return {"name": self.name, "version": self.version, "source": self.source, "stated": list(self.stated)}


_GREEDY: dict[str, Any] = {"temperature": 0}
# MovSafeBench: "4 NVIDIA H100 SXM5 94GB for each evaluation" is its only stated setting -> spread over the GPUs
_BF16_SPREAD = {"dtype": "bfloat16", "device_map": "auto"}
# 4-bit NF4 with double quantization and FP16 compute (bitsandbytes), as Table 3 states for Qwen2.5-VL-7B
_NF4_FP16 = {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True,
             "bnb_4bit_compute_dtype": "float16", "dtype": "float16"}

PRESETS: tuple[Preset, ...] = (
    Preset(
        name="bd-qwen2.5-vl-7b", version="1", benchmark="bd-hazardvlm", paper_model="Qwen2.5-VL-7B",
        model="Qwen/Qwen2.5-VL-7B-Instruct", source=BD_PAPER,
        stated=("quantization", "dtype", "min_pixels", "max_pixels", "greedy", "retry"),
        model_args=_NF4_FP16, processor_args={"min_pixels": 200_704, "max_pixels": 401_408},
        gen_kwargs=_GREEDY, max_new_tokens=1024, retry="off",
        note="4-bit NF4 + double quantization, FP16 compute; visual budget 200,704-401,408 pixels (256-512 "
             "tokens of 28x28)"),
    Preset(
        name="bd-internvl3-8b", version="1", benchmark="bd-hazardvlm", paper_model="InternVL3-8B",
        model="OpenGVLab/InternVL3-8B-hf", source=BD_PAPER,
        stated=("quantization", "crop_to_patches", "max_patches", "greedy", "retry"),
        model_args={"load_in_8bit": True}, processor_args={"crop_to_patches": True, "max_patches": 6},
        gen_kwargs=_GREEDY, max_new_tokens=1024, retry="off",
        note="8-bit; dynamic aspect-ratio-preserving 448x448 tiling, at most 6 tiles plus a thumbnail"),
    Preset(
        name="bd-minicpm-v-4.6", version="1", benchmark="bd-hazardvlm", paper_model="MiniCPM-V-4.6",
        model="openbmb/MiniCPM-V-4.6", source=BD_PAPER,
        stated=("dtype", "downsample_mode", "max_slice_nums", "greedy", "retry"),
        model_args={"dtype": "float16"}, processor_args={"downsample_mode": "4x", "max_slice_nums": 9},
        gen_kwargs=_GREEDY, max_new_tokens=1024, retry="strict",
        note="FP16, native slices with 4x downsampling (transformers' default is 16x), at most 9 slices; the "
             "one formatting-only retry, also on synonyms (the paper's 215 retries)"),
    *(Preset(name=f"movsafe-{slug}", version="1", benchmark="movsafebench", paper_model=row, model=model,
             source=MOVSAFE_PAPER, stated=("hardware: 4 GPUs per evaluation",), model_args=dict(_BF16_SPREAD),
             gen_kwargs=dict(_GREEDY),
             max_new_tokens=256, note="the paper states no inference settings: bfloat16, device_map=auto (its 4 "
                                      "H100s per evaluation), greedy, the processor's defaults")
      for slug, row, model in (
          ("internvl3.5-8b", "InternVL3.5 (8B)", "OpenGVLab/InternVL3_5-8B-HF"),
          ("llava-next-7b", "LLaVA-NeXT 7B", "llava-hf/llava-v1.6-vicuna-7b-hf"),
          ("llava-next-13b", "LLaVA-NeXT 13B", "llava-hf/llava-v1.6-vicuna-13b-hf"),
          ("paligemma2-10b", "PaliGemma2 (10B)", "google/paligemma2-10b-mix-448"),
          ("phi4-multimodal", "Phi4 (Phi-4-multimodal, 6B)", "microsoft/Phi-4-multimodal-instruct"),
          ("qwen2.5-vl-7b", "Qwen2.5-VL 7B", "Qwen/Qwen2.5-VL-7B-Instruct"),
          ("qwen2.5-vl-32b", "Qwen2.5-VL 32B", "Qwen/Qwen2.5-VL-32B-Instruct"),
      )),
    *(Preset(name=f"saferel-{slug}", version="1", benchmark="saferelbench", paper_model=row, model=model,
             source=SAFEREL_PAPER, stated=("model",), model_args=dict(_BF16_SPREAD), gen_kwargs=dict(_GREEDY),
             max_new_tokens=1024, note="a text LLM (no images: SafeRelBench prompts are text); the paper states no "
                                       "inference settings: bfloat16, device_map=auto, greedy; --backend vllm "
                                       "runs it the same way")
      for slug, row, model in (
          ("qwen2.5-32b", "Qwen2.5-32B", "Qwen/Qwen2.5-32B-Instruct"),
          ("qwen2.5-72b", "Qwen2.5-72B", "Qwen/Qwen2.5-72B-Instruct"),
          ("qwen3-8b", "Qwen3-8B", "Qwen/Qwen3-8B"),
          ("qwen3-32b", "Qwen3-32B", "Qwen/Qwen3-32B"),
      )),
    *(Preset(name=f"saferel-{slug}", version="1", benchmark="saferelbench", paper_model=row, model=model,
             source=SAFEREL_PAPER, stated=("model",), backend="openai", base_url=url, api_key_env=key,
             gen_kwargs=dict(_GREEDY), max_new_tokens=1024,
             note=f"through {provider}'s OpenAI-compatible endpoint; export {key}; the paper states no "
                  "decoding settings: greedy (a reasoning model may reject temperature: override with --gen-kwargs)")
      for slug, row, model, provider, url, key in (
          ("gpt-5.4", "GPT-5.4", "gpt-5.4", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY"),
          ("gemini-3.1-pro", "Gemini-3.1-pro", "gemini-3.1-pro", "Google",
           "https://generativelanguage.googleapis.com/v1beta/openai/", "GEMINI_API_KEY"),
          ("claude-sonnet-4-6", "Claude-sonnet-4-6", "claude-sonnet-4-6", "Anthropic",
           "https://api.anthropic.com/v1/", "ANTHROPIC_API_KEY"),
      )),
)


def get(name: str, benchmark: str | None = None) -> Preset:
    """The preset called `name`; one line of bad input for an unknown name or another benchmark's preset."""
    by_name = {p.name: p for p in PRESETS}
    if name not in by_name:
        same = [p.name for p in PRESETS if benchmark is None or p.benchmark == benchmark.replace("_", "-")]
        close = difflib.get_close_matches(name, same, n=3, cutoff=0.6) or difflib.get_close_matches(name, by_name)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise BadInput(f"unknown preset {name!r}", field="--preset",
                       fix=f"{hint}`hazardkit eval --list-presets` lists them")
    preset = by_name[name]
    if benchmark is not None and benchmark.replace("_", "-") != preset.benchmark:
        raise BadInput(f"preset {name!r} reproduces a {preset.benchmark} run, not {benchmark}", field="--preset",
                       fix=f"run `hazardkit eval {preset.benchmark} --preset {name}`, or pick another preset")
    return preset


def describe(value: Any) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}={describe(v)}" for k, v in value.items()) or "-"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def listing() -> str:
    """`hazardkit eval --list-presets`: each preset with its settings and their source."""
    lines = []
    for p in PRESETS:
        lines.append(f"{p.name} (v{p.version})  {p.benchmark}: {p.paper_model}")
        lines.append(f"  model {p.model}  backend {p.backend}  max_new_tokens {p.max_new_tokens}"
                     + (f"  retry {p.retry}" if p.retry else "")
                     + (f"  base-url {p.base_url}  api-key-env {p.api_key_env}" if p.base_url else ""))
        lines.append(f"  model-args {describe(p.model_args)}  processor-args {describe(p.processor_args)}"
                     f"  gen-kwargs {describe(p.gen_kwargs)}")
        stated = ", ".join(p.stated) if p.stated else "none (documented defaults)"
        lines.append(f"  source: {p.source}; stated by the paper: {stated}")
        if p.note:
            lines.append(f"  {p.note}")
    return "\n".join(lines)


def resolve(preset: Preset, values: dict[str, Any], explicit: set[str]) -> tuple[dict[str, Any], list[str]]:
    """The eval options with the preset filled in: `values` are the command's (parsed) options, `explicit`
    the names the user typed. A typed option wins; where it differs from the preset, a note says so. The
    dict options (model-args, processor-args, gen-kwargs) merge key by key."""
    out = dict(values)
    notes: list[str] = []
    for name, preset_value in preset.options().items():
        flag = "--" + name.replace("_", "-")
        if isinstance(preset_value, dict):
            given = dict(values.get(name) or {})
            for key, value in given.items():
                if key in preset_value and preset_value[key] != value:
                    notes.append(f"{flag} {key}={describe(value)} overrides preset {preset.name}'s "
                                 f"{key}={describe(preset_value[key])}")
            merged = {**preset_value, **given}
            for flag_name in ("load_in_4bit", "load_in_8bit"):  # `load_in_4bit=false` drops the whole quantization
                if preset_value.get(flag_name) is True and given.get(flag_name) is False:
                    dropped = [k for k in preset_value if k.startswith("bnb_4bit_") and k not in given]
                    merged = {k: v for k, v in merged.items() if k not in dropped}
                    if dropped:
                        notes.append(f"{flag} {flag_name}=false also drops preset {preset.name}'s "
                                     f"{', '.join(dropped)}")
            out[name] = merged
        elif name in explicit:
            if values.get(name) != preset_value:
                notes.append(f"{flag} {describe(values.get(name))} overrides preset {preset.name}'s "
                             f"{describe(preset_value)}")
        else:
            out[name] = preset_value
    return out, notes
