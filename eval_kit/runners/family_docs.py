"""`docs/model-families.md`, generated from the family table and the presets so the page cannot drift.

Run `python -m eval_kit.runners.family_docs > docs/model-families.md` after changing either;
tests/test_model_families_all.py fails when the committed page differs from what this renders.
"""

from __future__ import annotations

from eval_kit.runners import families, presets

INTRO = f"""# Model families

Which models `hazardkit eval --backend transformers` runs, family by family, and which it refuses and why.
This page is generated from `eval_kit/runners/families.py` and `eval_kit/runners/presets.py`
(`python -m eval_kit.runners.family_docs > docs/model-families.md`); a test fails when they disagree.

Every model type behind transformers' `AutoModelForImageTextToText` and `AutoModelForMultimodalLM` in the
pinned transformers (5.24, see `constraints.txt`) is listed. A family either runs on all three benchmarks
(MovSafeBench, BD-HazardVLM, SafeRelBench) with its images reaching the model, or is refused before any
processor or weight loads, in one line naming the cause and the fix, exit 2. A sample with images whose model
inputs carry no image tokens or pixels (a chat template that renders no image placeholder) fails with a
reason naming the family: it is never answered text-only in silence.

Results:

- **runs (tested)**: a tiny random-weight checkpoint of its real transformers classes runs `eval` on all three
  benchmarks in `tests/test_model_families*.py`, image tokens and pixels checked.
- **needs a package**: runs once the package is installed; without it, refused in one line naming it.
- **refused**: the one-line reason `eval` prints (tested for every refused family in
  `tests/test_model_families_all.py`).
- **not yet checked**: transformers loads it and `eval` tries it; a processor that cannot be built is one line,
  exit 2.

A family whose `generate()` cannot run without pixels (InstructBLIP: its Q-Former reads the image) gets a
**placeholder image** on SafeRelBench, whose prompts carry none, before the text of every prompt:
{families.PLACEHOLDER_IMAGE}.
Only such a family gets it (every other family answers SafeRelBench from text alone). The run says so in one
`note:` line at start and records it in `metadata.json` (`placeholder_image`, with the reason; and in
`settings`, so its answers never mix with a run without it). Its SafeRelBench result is the model answering
beside a blank image, not a text-only answer.
"""

TEXT_LLM = """## Text LLMs (SafeRelBench)

SafeRelBench prompts carry no images, so a text-only causal LM (`AutoModelForCausalLM`, e.g. Qwen2.5-Instruct,
Qwen3) with a chat template runs on it:

```bash
hazardkit eval saferelbench --backend transformers --model Qwen/Qwen3-8B --out runs/qwen3-8b
hazardkit eval saferelbench --backend vllm --model Qwen/Qwen3-8B --out runs/qwen3-8b-vllm
```

Its messages reach the template as plain strings (a text template reads `message.content` as one). On an image
benchmark it is refused in one line: `... (Qwen3Config) is not a vision-language model: this benchmark's
prompts carry images`, exit 2. With vLLM the same check runs before the engine starts.
"""

PRESETS_INTRO = """## The SafeRel paper's seven agents

`hazardkit eval saferelbench --preset NAME --out RUNDIR` runs an agent as the paper names it;
`hazardkit eval --list-presets` prints every preset with its settings and source. The paper states only the
model names; the other settings are ours (greedy, 1,024 new tokens, bfloat16, `device_map=auto`). The API
models go through the OpenAI-compatible backend at each provider's OpenAI-compatible endpoint; the key is read
from the environment variable named, never stored in the run folder.

| preset | paper agent | model | backend | endpoint | key variable |
|---|---|---|---|---|---|
"""


def _result(family: families.Family) -> str:
    if family.refused:
        return f"refused: {family.refused} (fix: {family.fix})"
    if family.needs:
        return f"needs a package: {', '.join(family.needs)}" + (f" ({family.note})" if family.note else "")
    if family.note == families.UNTESTED:
        return "not yet checked"
    return "runs (tested)" + (f": {family.note}" if family.note else "")


def _order(item: tuple[str, families.Family]) -> tuple[int, str]:
    result = _result(item[1])
    rank = next(i for i, prefix in enumerate(("runs (tested)", "runs (survey)", "needs", "refused", "not yet"))
                if result.startswith(prefix))
    return rank, item[1].title.lower()


def render() -> str:
    native = families.native_families()
    lines = [INTRO, "## Vision-language families", "",
             "| family | model type | class | result |", "|---|---|---|---|"]
    for model_type, family in sorted(families.FAMILIES.items(), key=_order):
        lines.append(f"| {family.title} | `{model_type}` | `{native.get(model_type, '-')}` | {_result(family)} |")
    counts = {}
    for family in families.FAMILIES.values():
        key = _result(family).split(":")[0].split(" (")[0]
        counts[key] = counts.get(key, 0) + 1
    lines += ["", f"{len(families.FAMILIES)} families: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + ".",
              "", TEXT_LLM, PRESETS_INTRO.rstrip("\n")]
    for p in presets.PRESETS:
        if p.benchmark != "saferelbench":
            continue
        lines.append(f"| `{p.name}` | {p.paper_model} | `{p.model}` | {p.backend} | {p.base_url or '-'} | "
                     f"{p.api_key_env or '-'} |")
    lines.append("")
    return "\n".join(lines)


def _short(reason: str) -> str:
    """The reason up to its first colon or parenthesis: the cause, without the detail the page gives."""
    return reason.split(":")[0].split(" (")[0].strip()


def readme_table() -> str:
    """The README's family table: every family of the pinned transformers by result, refusals by cause.

    README.md carries this block verbatim between the `families:begin` / `families:end` markers and a test
    compares them, so the README lists every family with its result and cannot drift from the table.
    """
    runs, needs, refused = [], [], {}
    for _, family in sorted(families.FAMILIES.items(), key=_order):
        if family.refused:
            refused.setdefault(_short(family.refused), []).append(family.title)
        elif family.needs:
            needs.append(f"{family.title} ({', '.join(family.needs)})")
        elif family.text_placeholder:
            runs.append(f"{family.title} (SafeRelBench with a grey placeholder image)")
        elif family.note != families.UNTESTED:
            runs.append(family.title)
    rows = ["| result | families |", "|---|---|",
            f"| runs on all three benchmarks ({len(runs)}) | {', '.join(runs)} |",
            f"| runs once a package is installed ({len(needs)}) | {', '.join(needs)} |"]
    for cause, titles in sorted(refused.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        rows.append(f"| refused, exit 2: {cause} ({len(titles)}) | {', '.join(titles)} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    import sys

    print(readme_table() if sys.argv[1:] == ["--readme"] else render(), end="")
