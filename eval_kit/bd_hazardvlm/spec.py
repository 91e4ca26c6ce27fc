"""BD-HazardVLM in code: taxonomy, record features, the prompt, the structured-answer parser and the repair hook.

The source is the BD-HazardVLM paper (see `CITATION`): a model sees one Bangladesh road image and answers an
8-field JSON object (hazard presence, primary hazard category, risk timing, severity, defensive actions,
evidence and two self-reported trap flags). Everything that defines the benchmark lives here so the
reconstruction builder, the runners, the publisher and the metrics agree on it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The one citation of this benchmark: the `evaluate` module and the dataset card both use it.
CITATION = """@misc{bdhazardvlm,
  title  = {BD-HazardVLM: Probing Vision-Language Models for Latent Defensive-Driving Hazards in
            Bangladesh Road Scenes},
  note   = {see the paper for the author list},
}"""

NAME = "bd_hazardvlm"

# --------------------------------------------------------------------------------------------
# Taxonomy (paper section 3: twelve mutually exclusive primary categories incl. the control class)
# --------------------------------------------------------------------------------------------

CONTROL_CATEGORY = "no_major_hazard"
CATEGORIES: tuple[str, ...] = (
    "informal_pedestrian_crossing",
    "rickshaw_easybike",
    "cng_unpredictable_stop",
    "bus_truck_occlusion",
    "motorcycle_weaving",
    "road_surface_damage",
    "waterlogging",
    "roadside_market_crowd",
    "animal_cart_obstacle",
    "uncontrolled_intersection",
    "low_visibility",
    CONTROL_CATEGORY,
)
CATEGORY_DESCRIPTIONS: dict[str, str] = {
    "informal_pedestrian_crossing": "pedestrians crossing or walking on the carriageway outside any crossing",
    "rickshaw_easybike": "cycle-rickshaws or battery easybikes cutting in, stopping or moving slowly",
    "cng_unpredictable_stop": "CNG auto-rickshaws stopping or pulling out unpredictably",
    "bus_truck_occlusion": "buses or trucks hiding pedestrians, vehicles or the road ahead",
    "motorcycle_weaving": "motorcycles weaving between vehicles or moving the wrong way",
    "road_surface_damage": "potholes, broken or uneven road surface, construction debris",
    "waterlogging": "standing water on the road that hides the surface or its edges",
    "roadside_market_crowd": "roadside market, vendors or crowds spilling onto the road",
    "animal_cart_obstacle": "animals, hand carts or animal-drawn carts on the road",
    "uncontrolled_intersection": "an intersection or merge without signals or traffic control",
    "low_visibility": "night, rain, fog, dust or glare that limits what the driver can see",
    CONTROL_CATEGORY: "control scene: no major defensive-driving hazard is visible",
}
TIMINGS: tuple[str, ...] = ("immediate", "latent", "both", "none")
SEVERITIES: tuple[str, ...] = ("low", "medium", "high")
ACTIONS: tuple[str, ...] = (
    "slow_down",
    "stop_or_yield",
    "prepare_to_brake",
    "keep_distance",
    "avoid_overtaking",
    "monitor_occlusion",
    "change_lane_carefully",
    "proceed_cautiously",
    "no_action",
)
SOURCE_DATASETS: tuple[str, ...] = ("rsud20k", "tfp_bd")
SOURCE_NAMES: dict[str, str] = {"rsud20k": "RSUD20K", "tfp_bd": "TFP-BD"}
# What a control scene must say (paper section 4: control category, no-risk timing, low severity, no action).
CONTROL_ANSWER: dict[str, Any] = {
    "hazard_present": False,
    "primary_hazard_category": CONTROL_CATEGORY,
    "risk_timing": "none",
    "severity": "low",
    "defensive_actions": ["no_action"],
}

ANNOTATION_FIELDS: tuple[str, ...] = (
    "hazard_present", "primary_hazard_category", "risk_timing", "severity", "defensive_actions",
    "evidence", "hallucination_trap", "western_bias_trap",
)
OUTPUT_FIELDS: tuple[str, ...] = (
    "hazard_present", "primary_hazard_category", "risk_timing", "severity", "defensive_actions",
    "evidence", "possible_hallucination", "possible_western_road_bias",
)
# model self-report field -> the human trap annotation it is scored against
TRAP_FIELDS: dict[str, str] = {
    "possible_hallucination": "hallucination_trap",
    "possible_western_road_bias": "western_bias_trap",
}
# The source images may never be published (paper section 3): only annotations and the manifest are. The
# publisher refuses an `image` column in every published config; images exist only in the local configs
# `reconstructed` and `demo` that `hazardkit reconstruct` writes.
BENCHMARK_ID = re.compile(r"^BDHV_(?:0(?:00[1-9]|0[1-9]\d|[1-4]\d\d)|0500|DEMO_\d{4})$")  # 0001..0500
NUM_IMAGES = 500

# Paper table 2 (worked numbers the tests reproduce).
PAPER_COUNTS: dict[str, Any] = {
    "images": 500, "rsud20k": 375, "tfp_bd": 125, "hazard_present": 445, "control": 55,
    "timing": {"latent": 404, "immediate": 41, "none": 55, "both": 0},
    "high_severity": 58, "rickshaw_easybike": 205,
}


def taxonomy() -> dict[str, Any]:
    """The machine-readable taxonomy (written to `manifests/bd_hazardvlm/v1/taxonomy.json`)."""
    return {
        "benchmark": NAME,
        "version": "1.0.0",
        "primary_hazard_category": [
            {"label": c, "description": CATEGORY_DESCRIPTIONS[c], "control": c == CONTROL_CATEGORY}
            for c in CATEGORIES
        ],
        "risk_timing": list(TIMINGS),
        "severity": list(SEVERITIES),
        "defensive_actions": list(ACTIONS),
        "control_answer": CONTROL_ANSWER,
        "annotation_fields": list(ANNOTATION_FIELDS),
        "output_fields": list(OUTPUT_FIELDS),
        "source_datasets": list(SOURCE_DATASETS),
    }


# --------------------------------------------------------------------------------------------
# datasets Features (imported lazily: scoring does not need datasets)
# --------------------------------------------------------------------------------------------


def features_dict(*, with_image: bool = True) -> dict[str, Any]:
    """The row features in `datasets`' serialised form (`Features.to_dict()`): the one declaration.

    The published `annotations` config has no image (source images are never redistributed); the local
    `reconstructed` config and the `demo` config have one, plus the sha256 it was verified against.
    """
    def value(dtype: str) -> dict[str, Any]:
        return {"dtype": dtype, "_type": "Value"}

    def label(names: Iterable[str]) -> dict[str, Any]:
        return {"names": list(names), "_type": "ClassLabel"}

    feats: dict[str, Any] = {"id": value("string")}
    if with_image:
        feats["image"] = {"_type": "Image"}
    feats.update({
        "source_dataset": label(SOURCE_DATASETS),
        "source_id": value("string"),
        "source_path": value("string"),
        "hazard_present": value("bool"),
        "primary_hazard_category": label(CATEGORIES),
        "risk_timing": label(TIMINGS),
        "severity": label(SEVERITIES),
        "defensive_actions": {"feature": label(ACTIONS), "_type": "List"},
        "evidence": value("string"),
        "hallucination_trap": value("bool"),
        "western_bias_trap": value("bool"),
        "pilot": value("bool"),
    })
    if with_image:
        feats["image_sha256"] = value("string")
    return feats


def features(*, with_image: bool = True):
    """`datasets.Features` of one row (imported lazily: scoring and reconstruction do not need datasets)."""
    import datasets

    return datasets.Features.from_dict(features_dict(with_image=with_image))


def arrow_schema(*, with_image: bool = True):
    """The Arrow schema `datasets` writes for these features, with its `huggingface` metadata, built with
    pyarrow alone (importing datasets costs about a second per command; a test checks they are equal)."""
    import pyarrow as pa

    types = {"string": pa.string(), "bool": pa.bool_()}

    def arrow_type(feat: dict[str, Any]):
        kind = feat["_type"]
        if kind == "Value":
            return types[feat["dtype"]]
        if kind == "ClassLabel":
            return pa.int64()
        if kind == "Image":
            return pa.struct([("bytes", pa.binary()), ("path", pa.string())])
        if kind == "List":
            return pa.list_(arrow_type(feat["feature"]))
        raise ValueError(f"no Arrow type for feature {kind}")

    feats = features_dict(with_image=with_image)
    meta = json.dumps({"info": {"features": feats}})
    return pa.schema([(name, arrow_type(f)) for name, f in feats.items()], metadata={"huggingface": meta})


# --------------------------------------------------------------------------------------------
# Annotation loading (JSON Lines or Parquet; used by scoring, reconstruction and publishing)
# --------------------------------------------------------------------------------------------

ANNOTATION_SCHEMA = "bd_hazardvlm_annotation"
MANIFEST_SCHEMA = "bd_hazardvlm_image_manifest"
PREDICTION_SCHEMA = "bd_hazardvlm_prediction"
OUTPUT_SCHEMA = "bd_hazardvlm_output"


def _decode_parquet_labels(path: Path, config: str | None) -> list[tuple[str, dict[str, Any]]]:
    """Rows of annotation Parquet with ClassLabel ints (also inside lists) decoded back to names."""
    from eval_kit.errors import BadInput
    from eval_kit.parquet import open_parquet, read_columns
    from eval_kit.tables import parquet_files

    rows: list[tuple[str, dict[str, Any]]] = []
    wanted = ["id", "source_dataset", "source_id", "source_path", *ANNOTATION_FIELDS, "pilot"]
    for file in parquet_files(path, config or (None if path.is_file() else _only_config(path))):
        pf = open_parquet(file)
        names = pf.schema_arrow.names
        missing = [c for c in wanted if c not in names]
        if missing:
            raise BadInput(f"missing column(s) {', '.join(missing)}", path=file,
                           fix="annotation Parquet needs every annotation field")
        columns = read_columns(file, wanted, pf=pf)
        for i in range(pf.metadata.num_rows):
            rows.append((f"{file.name} row {i + 1}", {c: columns[c][i] for c in wanted}))
    return rows


def _only_config(path: Path) -> str | None:
    data = path / "data"
    if not data.is_dir():
        return None
    configs = sorted(p.name for p in data.iterdir() if p.is_dir())
    return "annotations" if "annotations" in configs else None


def load_annotations(
    path: str | Path, *, config: str | None = None, check_consistency: bool = True
) -> dict[str, dict[str, Any]]:
    """Annotation records keyed by id, from JSON Lines or Parquet, each validated against the JSON Schema.

    `path` is a JSON Lines file, a Parquet file, a folder of Parquet, or a dataset folder
    (`data/<config>/`, default `annotations`). Raises BadInput naming the file, line/row and field.
    Shared by `score`, `compare`, `reconstruct` and `publish`.
    """
    from eval_kit.errors import BadInput
    from eval_kit.jsonl import iter_jsonl
    from eval_kit.schemas import first_error

    path = Path(path)
    if not path.exists():
        raise BadInput("file not found", path=path)
    if path.is_file() and path.suffix in {".jsonl", ".json", ".ndjson"}:
        rows = [(f"line {n}", obj) for n, obj in iter_jsonl(path)]
    else:
        rows = _decode_parquet_labels(path, config)
    if not rows:
        raise BadInput("no annotation rows", path=path)
    records: dict[str, dict[str, Any]] = {}
    for where, row in rows:
        problem = first_error(ANNOTATION_SCHEMA, row)
        if problem is not None:
            raise BadInput(f"{where}: {problem[1]}", path=path, field=problem[0],
                           fix="see eval_kit/bd_hazardvlm/schemas/bd_hazardvlm_annotation.schema.json")
        if check_consistency:
            issue = control_inconsistency(row)
            if issue:
                raise BadInput(f"{where}: {issue}", path=path, field="primary_hazard_category",
                               fix="a control scene is no_major_hazard / none / low / [no_action] with "
                                   "hazard_present false, and only a control scene has timing none")
        if row["id"] in records:
            raise BadInput(f"{where}: duplicate id {row['id']!r}", path=path, field="id")
        records[row["id"]] = row
    return records


def incomplete_parquet(path: str | Path, config: str | None = None) -> list[dict[str, Any]]:
    """The `hazardkit` metadata of Parquet files under `path` that a reconstruction marked incomplete.

    A partial reconstruction (`--allow-missing`) must never pass for the benchmark: scoring warns on it.
    """
    import pyarrow.parquet as pq

    from eval_kit.strictjson import loads as strict_loads
    from eval_kit.tables import parquet_files

    path = Path(path)
    if path.is_file() and path.suffix != ".parquet":
        return []
    found = []
    for file in parquet_files(path, config or (None if path.is_file() else _only_config(path))):
        raw = (pq.read_schema(file).metadata or {}).get(b"hazardkit")
        meta = strict_loads(raw, path=file) if raw else {}
        if isinstance(meta, dict) and meta.get("complete") is False:
            found.append({"file": str(file), **meta})
    return found


def control_inconsistency(record: Mapping[str, Any]) -> str | None:
    """Why an annotation breaks the control-scene rule (paper section 4), or None when it is consistent."""
    is_control = record.get("primary_hazard_category") == CONTROL_CATEGORY
    if bool(record.get("hazard_present")) == is_control:
        return (f"hazard_present={record.get('hazard_present')} contradicts primary_hazard_category="
                f"{record.get('primary_hazard_category')!r}")
    if is_control:
        for key in ("risk_timing", "severity", "defensive_actions"):
            if record.get(key) != CONTROL_ANSWER[key]:
                return f"control scene has {key}={record.get(key)!r}, expected {CONTROL_ANSWER[key]!r}"
    elif record.get("risk_timing") == "none":
        # paper table 2: the 55 `none` timings are exactly the 55 control scenes
        return "a hazard scene cannot have risk_timing 'none'"
    return None


# --------------------------------------------------------------------------------------------
# The prompt (paper section 4: task, local context, taxonomy, vocabulary, schema, no invented infrastructure)
# --------------------------------------------------------------------------------------------


def _output_example() -> str:
    return json.dumps(
        {
            "hazard_present": True,
            "primary_hazard_category": "<one category label>",
            "risk_timing": "<immediate|latent|both|none>",
            "severity": "<low|medium|high>",
            "defensive_actions": ["<one or more action labels>"],
            "evidence": "<one or two sentences naming the visible cues>",
            "possible_hallucination": False,
            "possible_western_road_bias": False,
        },
        indent=2,
    )


def build_prompt() -> str:
    """The zero-shot instruction every model receives with the image (same semantics for all models)."""
    categories = "\n".join(f"- {c}: {CATEGORY_DESCRIPTIONS[c]}" for c in CATEGORIES)
    return (
        "You are assisting a defensive driver in Bangladesh. Look at this single road image taken from the "
        "ego vehicle's point of view and assess the most important defensive-driving hazard.\n\n"
        "Context: Bangladesh roads carry dense mixed traffic: pedestrians crossing anywhere, cycle-rickshaws, "
        "battery easybikes, CNG auto-rickshaws, motorcycles, buses, trucks, hand carts and animals share the "
        "road; lane discipline is weak; roadside markets, damaged surfaces and waterlogging are common. "
        "Many roads have no lane markings, signals, zebra crossings, sidewalks or stop signs.\n\n"
        "Rely only on what is visible in the image. Do not invent lane markings, traffic signals, zebra "
        "crossings, sidewalks, stop signs or any other Western-style road infrastructure that you cannot "
        "see.\n\n"
        "Choose exactly one primary_hazard_category:\n"
        f"{categories}\n\n"
        "risk_timing: immediate (the hazard can cause a conflict now), latent (it may develop into one), "
        "both, or none.\n"
        "severity: low, medium or high (the likely consequence if the driver does not respond).\n"
        f"defensive_actions: one or more of {', '.join(ACTIONS)}.\n"
        "possible_hallucination: true if this scene could lead a model to claim objects or details that are "
        "not supported by the image.\n"
        "possible_western_road_bias: true if this scene could lead a model to assume Western road "
        "infrastructure or rules that are not present.\n"
        "If there is no major hazard, answer hazard_present false, primary_hazard_category "
        f"{CONTROL_CATEGORY}, risk_timing none, severity low and defensive_actions [\"no_action\"].\n\n"
        "Answer with one JSON object only, with exactly these eight fields and no other text:\n"
        f"{_output_example()}"
    )


PROMPT = build_prompt()


# --------------------------------------------------------------------------------------------
# Parsing a response into the label space
# --------------------------------------------------------------------------------------------

def _key(text: str) -> str:
    """Case, spaces, hyphens, slashes and punctuation folded: 'Rickshaw / Easy-bike' -> 'rickshaw_easy_bike'."""
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")


def _synonyms(pairs: Mapping[str, Iterable[str]]) -> dict[str, str]:
    table: dict[str, str] = {}
    for label, words in pairs.items():
        table[_key(label)] = label
        for word in words:
            table[_key(word)] = label
    return table


CATEGORY_SYNONYMS = _synonyms({
    "informal_pedestrian_crossing": ["pedestrian crossing", "pedestrian", "pedestrians", "jaywalking",
                                     "informal crossing", "pedestrian_crossing"],
    "rickshaw_easybike": ["rickshaw", "easybike", "easy bike", "rickshaw or easybike", "rickshaw_easy_bike",
                          "rickshaw easybike hazard", "e-rickshaw", "auto rickshaw easybike"],
    "cng_unpredictable_stop": ["cng", "cng stop", "cng stopping", "unpredictable cng stopping",
                               "cng auto rickshaw", "cng_stop"],
    "bus_truck_occlusion": ["bus occlusion", "truck occlusion", "bus or truck occlusion", "large vehicle occlusion",
                            "bus_truck"],
    "motorcycle_weaving": ["motorcycle", "motorcycle weaving", "motorcycle wrong way", "motorbike weaving",
                           "motorcycle wrong-way movement or weaving"],
    "road_surface_damage": ["road damage", "pothole", "potholes", "road surface damage", "damaged road"],
    "waterlogging": ["water logging", "water-logging", "flooding", "flooded road", "standing water"],
    "roadside_market_crowd": ["roadside market", "market", "crowd", "roadside market or crowd", "market crowd"],
    "animal_cart_obstacle": ["animal", "cart", "animal obstacle", "cart obstacle", "animal or cart obstacle",
                             "animal- or cart-related obstacle"],
    "uncontrolled_intersection": ["intersection", "uncontrolled junction", "junction"],
    "low_visibility": ["poor visibility", "fog", "night", "low light"],
    CONTROL_CATEGORY: ["none", "no hazard", "no_hazard", "no major hazard", "control", "no_major_hazards"],
})
TIMING_SYNONYMS = _synonyms({
    "immediate": ["imminent", "immediate risk"],
    "latent": ["potential", "latent risk", "developing"],
    "both": ["both immediate and latent", "immediate and latent", "latent and immediate",
             "both latent and immediate", "immediate_latent"],
    "none": ["no risk", "no_risk", "n/a"],
})
SEVERITY_SYNONYMS = _synonyms({"low": ["minor"], "medium": ["moderate", "med"], "high": ["severe", "critical"]})
ACTION_SYNONYMS = _synonyms({
    "slow_down": ["slow", "reduce speed", "decelerate"],
    "stop_or_yield": ["stop", "yield", "stop and yield", "give way"],
    "prepare_to_brake": ["prepare to stop", "be ready to brake", "cover the brake"],
    "keep_distance": ["maintain distance", "keep safe distance", "maintain a safe distance", "keep a safe distance"],
    "avoid_overtaking": ["do not overtake", "no overtaking", "dont overtake"],
    "monitor_occlusion": ["watch occlusion", "monitor occluded area", "watch for hidden road users"],
    "change_lane_carefully": ["change lanes carefully", "lane change carefully", "change lane"],
    "proceed_cautiously": ["proceed with caution", "proceed carefully", "drive cautiously", "continue cautiously"],
    "no_action": ["none", "no action needed", "no action required", "continue normally"],
})
_BOOL_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


@dataclass
class ParseResult:
    """What the parser made of one response.

    `prediction` holds every field it could map (a field it could not map is absent); `violations` lists
    `(field, message)` pairs; `valid` means all eight fields were present and in the label space.
    `normalised` lists the fields whose raw value was not already the exact label (case, spacing,
    hyphens or a synonym were folded), so an audit can compare raw and parsed values as in the paper;
    `synonyms` is the subset that needed a synonym (a different word, not just another spelling).
    `repaired` means the JSON was malformed (trailing comma, single quotes, cut off, ...) and was read after
    repair: its fields are mapped and scored, and a `(response)` violation keeps it schema-invalid.
    """

    prediction: dict[str, Any] = field(default_factory=dict)
    violations: list[tuple[str, str]] = field(default_factory=list)
    normalised: list[str] = field(default_factory=list)
    synonyms: list[str] = field(default_factory=list)
    raw: dict[str, Any] | None = None
    repaired: bool = False

    @property
    def valid(self) -> bool:
        return not self.violations

    def describe(self) -> str:
        return "; ".join(f"{f}: {m}" for f, m in self.violations) or "valid"


# JSON extraction bound: after reasoning blocks are removed (one scan), at most the first ANSWER_HEAD and the
# last ANSWER_TAIL characters are read; candidates come from one linear scan; at most MAX_CANDIDATES objects
# are decoded, and at most MAX_REPAIRS candidates of up to REPAIR_MAX_CHARS characters and REPAIR_MAX_BRACKETS
# brackets are repaired (json_repair is a pure-Python parser, slow on deep nesting). The eight-field answer
# is under 2 KB with three brackets, so these bounds never cut a real one.
ANSWER_HEAD = 32_000
ANSWER_TAIL = 32_000
MAX_CANDIDATES = 64
MAX_REPAIRS = 4
REPAIR_MAX_CHARS = 8_000
REPAIR_MAX_BRACKETS = 64


def _fenced_blocks(text: str) -> list[str]:
    """Contents of ``` fences (a language tag on the opening line dropped); an unclosed last fence counts
    (a truncated answer). Split on the fence marker: no regex, linear."""
    parts = text.split("```")
    blocks = []
    for i in range(1, len(parts), 2):
        block = parts[i]
        first, newline, rest = block.partition("\n")
        if newline and re.fullmatch(r"[A-Za-z0-9_+-]{0,20}\s*", first):
            block = rest
        blocks.append(block.strip())
    return blocks


def _brace_spans(text: str) -> tuple[list[tuple[int, int]], int | None]:
    """Balanced `{...}` spans (by start, outermost first) and the start of an object still open at the end.

    One pass with a stack; strings are tracked only inside braces, so a stray quote in prose does not hide an
    object."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    in_str, esc = False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"' and stack:
            in_str = True
        elif ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            spans.append((stack.pop(), i + 1))
    spans.sort()
    return spans, (stack[0] if stack else None)


def _json_candidates(text: str) -> list[str]:
    """Fenced blocks first, then balanced {...} spans (outermost first), an object cut off at the end, and
    the whole text; at most MAX_CANDIDATES, duplicates dropped."""
    spans, open_start = _brace_spans(text)
    found = [*_fenced_blocks(text), *(text[a:b] for a, b in spans)]
    if open_start is not None:
        found.append(text[open_start:])
    found.append(text.strip())
    seen: set[str] = set()
    out = []
    for candidate in found:
        if candidate and candidate not in seen:
            seen.add(candidate)
            out.append(candidate)
        if len(out) >= MAX_CANDIDATES:
            break
    return out


def _field_count(obj: Any) -> int:
    return sum(1 for k in obj if _key(str(k)) in OUTPUT_FIELDS) if isinstance(obj, dict) else 0


def _repairable(candidate: str) -> bool:
    return (candidate.lstrip().startswith(("{", "[")) and len(candidate) <= REPAIR_MAX_CHARS
            and candidate.count("{") + candidate.count("[") <= REPAIR_MAX_BRACKETS)


def _decode(candidate: str, *, repair: bool) -> tuple[Any, str | None]:
    """(value, None) for strict JSON, (value, why) for JSON that needed repair, (None, why) for neither."""
    try:
        return json.loads(candidate), None
    except RecursionError:
        return None, "JSON nested too deeply"
    except ValueError as exc:
        why = f"malformed JSON ({exc.msg} at line {exc.lineno} column {exc.colno} of the object)"
    if not repair or not _repairable(candidate):
        return None, why
    try:
        import json_repair

        value = json_repair.repair_json(candidate, return_objects=True)
    except (RecursionError, ValueError, TypeError, IndexError):
        return None, why
    if isinstance(value, list):  # a list of objects ("[{...}]", or two objects one after another)
        value = max((v for v in value if isinstance(v, dict)), key=_field_count, default=None)
    return (value, why) if isinstance(value, dict) and value else (None, why)


def _find_json(text: str) -> tuple[dict[str, Any] | None, str | None, bool]:
    """(object, None, repaired) for the answer object in a response, or (None, why, False) when there is none.

    The answer is the candidate with the most output fields; strict JSON beats repaired JSON, then the
    earlier candidate wins. An object with no output field is kept only as a last resort."""
    from eval_kit.responses import bound, fold_punctuation, strip_reasoning

    text = fold_punctuation(bound(strip_reasoning(text), ANSWER_HEAD, ANSWER_TAIL))
    best: tuple[int, int, int] | None = None
    chosen: tuple[dict[str, Any], bool] | None = None
    first_error: str | None = None
    repairs = 0
    for rank, candidate in enumerate(_json_candidates(text)):
        value, why = _decode(candidate, repair=repairs < MAX_REPAIRS)
        repairs += why is not None and _repairable(candidate)
        if why is not None and first_error is None and candidate.lstrip().startswith("{"):
            first_error = why
        if not isinstance(value, dict):
            continue
        key = (_field_count(value), why is None, -rank)
        if best is None or key > best:
            best, chosen = key, (value, why is not None)
    if chosen is None:
        return None, first_error or "no JSON object found", False
    if best[0] == 0 and not chosen[0]:
        return None, "no JSON object found", False
    return chosen[0], (first_error if chosen[1] else None), chosen[1]


def extract_json(text: str) -> dict[str, Any] | None:
    """The JSON object in a response: bare, in a ``` fence, or surrounded by text; None when there is none.

    Prefers the object with the most of the eight output fields (a model may echo other JSON). Malformed
    JSON (trailing commas, single quotes, Python literals, comments, unquoted keys, an object cut off by
    the token limit) is repaired with `json_repair`; `parse_response` reports such an answer as a format
    violation so the formatting retry still happens, while the fields it could read are scored.
    """
    return _find_json(text)[0]


def _map_label(value: Any, table: Mapping[str, str]) -> str | None:
    if not isinstance(value, str):
        return None
    return table.get(_key(value))


def _map_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _BOOL_WORDS.get(value.strip().lower())
    return None


def _split_actions(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, str):  # "slow_down, keep_distance" or a single label
        return [p for p in re.split(r"[,;|]| and ", value) if p.strip()]
    return None


def normalise_output(obj: Mapping[str, Any]) -> ParseResult:
    """Map an 8-field object (keys and values in any case/spacing, obvious synonyms) to the label space.

    Each field is checked on its own, so a response with one bad field is still scored on the others.
    """
    result = ParseResult(raw=dict(obj))
    fields = {_key(str(k)): v for k, v in obj.items()}
    for name, value in ((k, fields[k]) for k in OUTPUT_FIELDS if k in fields):
        if name in ("hazard_present", "possible_hallucination", "possible_western_road_bias"):
            mapped = _map_bool(value)
            if mapped is None:
                result.violations.append((name, f"{value!r} is not a boolean (use true or false)"))
                continue
            if not isinstance(value, bool):
                result.normalised.append(name)
            result.prediction[name] = mapped
        elif name == "evidence":
            if not isinstance(value, str):
                result.violations.append((name, f"expected a string, got {type(value).__name__}"))
                continue
            result.prediction[name] = value
        elif name == "defensive_actions":
            items = _split_actions(value)
            if items is None:
                result.violations.append((name, f"expected a list of action labels, got {type(value).__name__}"))
                continue
            mapped_items, bad = [], []
            for item in items:
                label = _map_label(item, ACTION_SYNONYMS)
                (mapped_items if label else bad).append(label or item)
            if bad:
                result.violations.append((name, f"not in the action vocabulary: {', '.join(map(repr, bad))}"))
                continue
            if not mapped_items:
                result.violations.append((name, "empty list (use [\"no_action\"] when nothing is needed)"))
                continue
            if not isinstance(value, list) or list(value) != mapped_items:
                result.normalised.append(name)
            if any(_key(str(item)) != label for item, label in zip(items, mapped_items, strict=True)):
                result.synonyms.append(name)
            result.prediction[name] = sorted(set(mapped_items), key=ACTIONS.index)
        else:
            table, space = {
                "primary_hazard_category": (CATEGORY_SYNONYMS, CATEGORIES),
                "risk_timing": (TIMING_SYNONYMS, TIMINGS),
                "severity": (SEVERITY_SYNONYMS, SEVERITIES),
            }[name]
            label = _map_label(value, table)
            if label is None:
                result.violations.append((name, f"{value!r} is not one of {', '.join(space)}"))
                continue
            if value != label:
                result.normalised.append(name)
            if _key(value) != label:
                result.synonyms.append(name)
            result.prediction[name] = label
    for name in OUTPUT_FIELDS:
        if name not in fields:
            result.violations.append((name, "missing"))
    extra = [str(k) for k in obj if _key(str(k)) not in OUTPUT_FIELDS]
    if extra:
        result.violations.append(("(object)", f"unexpected field(s) {', '.join(extra)}"))
    order = {f: i for i, f in enumerate((*OUTPUT_FIELDS, "(object)"))}
    result.violations.sort(key=lambda v: order[v[0]])
    return result


def parse_response(response: str | None) -> ParseResult:
    """Parse a raw model response: find the JSON, then map every field (see `normalise_output`)."""
    if response is None or not str(response).strip():
        return ParseResult(violations=[("(response)", "empty response")])
    obj, why, repaired = _find_json(str(response))
    if obj is None:
        return ParseResult(violations=[("(response)", why or "no JSON object found")])
    result = normalise_output(obj)
    if repaired:  # not schema-valid as written (the paper's strict JSON): read, scored, and retried
        result.repaired = True
        result.violations.insert(0, ("(response)", f"{why or 'malformed JSON'}; read after repair"))
    return result


# --------------------------------------------------------------------------------------------
# The single formatting-only retry (paper section 4): a hook the runner calls
# --------------------------------------------------------------------------------------------


def needs_retry(result: ParseResult, *, strict: bool = False) -> bool:
    """Whether the runner should spend the one formatting-only retry on this output.

    Default: only when the output is not schema-valid after normalisation. `strict=True` also retries
    when a value needed a synonym (e.g. "both immediate and latent" for `both`), which is how the paper's
    MiniCPM-V run triggered its 215 retries: use it to reproduce the paper's retry counts.
    """
    return not result.valid or (strict and bool(result.synonyms))


def repair_prompt(invalid_output: str, result: ParseResult | None = None) -> str:
    """The follow-up message for the one formatting-only retry.

    It quotes the model's own output and names the schema violations, restates the output format and
    the allowed labels (already in the original prompt), and adds no visual or semantic information:
    nothing about the image, no hint about which label is right.
    """
    result = result if result is not None else parse_response(invalid_output)
    problems = "\n".join(f"- {f}: {m}" for f, m in result.violations) or "- the output is not valid JSON"
    return (
        "Your previous answer does not follow the required output format.\n"
        f"Problems found:\n{problems}\n\n"
        "Rewrite your previous answer as one JSON object with exactly the eight fields below and no other "
        "text. Keep your assessment; change only the format. Use only the allowed labels:\n"
        f"- primary_hazard_category: one of {', '.join(CATEGORIES)}\n"
        f"- risk_timing: one of {', '.join(TIMINGS)}\n"
        f"- severity: one of {', '.join(SEVERITIES)}\n"
        f"- defensive_actions: a list of one or more of {', '.join(ACTIONS)}\n"
        "- hazard_present, possible_hallucination, possible_western_road_bias: true or false\n"
        "- evidence: a short string\n\n"
        f"Format:\n{_output_example()}\n\n"
        f"Your previous answer:\n{invalid_output}"
    )


def prediction_line(sample_id: str, initial_response: str, final_response: str | None = None) -> dict[str, Any]:
    """The JSON Lines record a runner writes for one image (schema `bd_hazardvlm_prediction`).

    `final_response` is the answer to the repair prompt when a retry happened; `response` is always the
    output that is scored, and `initial_response` keeps the first output for the audit.
    """
    retried = final_response is not None
    return {
        "id": sample_id,
        "response": final_response if retried else initial_response,
        "initial_response": initial_response,
        "retried": retried,
    }
