"""The layout parameters of HazardForge in one versioned, serialisable place.

Paper symbols: r (outpainting width, intrusion), l (half-width of the intrusion band), d (half-height of the
distance band as a fraction of H). The paper gives no values; the defaults below are ours and chosen so
that the masks on a 1600 x 900 nuScenes frame are r = 200 px, l = 100 px and a band of +-45 rows.
Lengths that depend on the image are fractions of the ORIGINAL image width/height and are turned into
integer pixels (rounded half to even by `round`) when a layout is built; the plan stores the pixel values,
so a job is reproducible from its plan line alone. Job ids hash the version and every layout parameter;
bump CONFIG_VERSION when a default changes so that the change is visible in the plan too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

CONFIG_VERSION = "hazardforge-layout-3"

# Typical real heights of the categories in metres (standing height; lying objects: their height off the road),
# the input of perspective sizing. Our values, documented in docs/building.md; override with `real_height_m`.
REAL_HEIGHT_M: dict[str, float] = {
    "human": 1.7, "motorcycle": 1.2, "bicycle": 1.1, "cone": 0.7, "rocks": 0.4, "debris": 0.3,
    "roadkill": 0.25, "dog": 0.6, "cat": 0.3, "deer": 1.3, "fox": 0.45, "pig": 0.7, "raccoon": 0.35,
}
# Assumed camera height above the ground per agent, metres: nuScenes' CAM_FRONT is about 1.5 m up; a sidewalk
# robot's camera about 1.0 m (SA-Bench does not state it). Ours; override with `camera_height_m`.
CAMERA_HEIGHT_M: dict[str, float] = {"vehicle": 1.5, "robot": 1.0}
# Widest width/height ratio of a side view per category (the compositor's procedural sprites, rounded up): the
# intrusion band is only 2 l wide, so an intruding object stands as far back as it must to fit in it.
SIDE_ASPECT: dict[str, float] = {
    "human": 0.5, "motorcycle": 1.25, "bicycle": 1.25, "cone": 0.75, "rocks": 1.8, "debris": 4.0, "roadkill": 4.0,
    "dog": 1.3, "cat": 1.4, "deer": 0.85, "fox": 1.5, "pig": 1.45, "raccoon": 1.55,
}


@dataclass(frozen=True)
class ForgeConfig:
    """Everything that decides where and what HazardForge renders (not how: that is the editor's job)."""

    version: str = CONFIG_VERSION
    # intrusion (paper 3.2.3): r = round(intrusion_r_frac * W), l = round(intrusion_l_frac * W)
    intrusion_r_frac: float = 0.125
    intrusion_l_frac: float = 0.0625
    # With ground truth "straight" there is no centre object (the centre is the safe region); when True a
    # nearby front-facing object is put in the outer region opposite the intrusion so that both non-safe
    # regions are occupied, as in every other case. Our reading; the paper does not say.
    intrusion_opposite_near_when_straight: bool = True
    # distance (paper 3.2.4): far band rows |y - y_vp| <= d * H inside Omega_k*
    distance_d: float = 0.05
    # a far object smaller than min_object_px at distance_d comes closer: d grows (steps of 0.005) up to this
    distance_d_max: float = 0.1
    # nearby front-facing objects (static scenario, distance/intrusion companions): a box spanning the region's
    # columns (less a margin on each side) and rows [near_top_frac*H, near_bottom_frac*H)
    near_top_frac: float = 0.45
    near_bottom_frac: float = 1.0
    near_margin_frac: float = 0.0
    # perspective sizing: an object whose base stands on image row y_b (below the vanishing point's row y_vp) is
    # real_height_m[category] / camera_height_m[agent] * (y_b - y_vp) pixels tall (flat ground, level camera).
    # Nearby, motion and intrusion objects stand at y_b = y_vp + near_depth * (hood_top - y_vp); the far
    # object of the distance scenario a tenth of the band above its bottom (so it does not touch the mask's
    # edge), the band growing towards distance_d_max when the object would be too small (layout.distance_band).
    # An intruding object stands farther back when its side view (side_aspect x height) would be wider than the
    # intrusion band. An object whose height comes out below min_object_px is not planned (a skipped job: "far
    # object too small" / "intruding object too small"), never enlarged.
    real_height_m: dict[str, float] = dataclasses.field(default_factory=lambda: dict(REAL_HEIGHT_M))
    camera_height_m: dict[str, float] = dataclasses.field(default_factory=lambda: dict(CAMERA_HEIGHT_M))
    near_depth: float = 0.8
    min_object_px: int = 10
    side_aspect: dict[str, float] = dataclasses.field(default_factory=lambda: dict(SIDE_ASPECT))
    # known obstacles (boxes a source carries: labels, a synthetic scene's barriers, an adapter's annotations):
    # an object whose box would cover more than obstacle_max_cover of an obstacle box, or lie on one with more
    # than that share of its own box, is moved along its row inside its mask, else its job is skipped
    # ("object would cover an obstacle"). Its width is planned as side_aspect x height (the widest view).
    obstacle_max_cover: float = 0.3
    # motion (paper 3.2.2): the conditional mask is the whole centre region Omega_C
    # subsampling of the plan to target counts per scenario x category (None = keep every eligible job)
    target_counts: dict[str, dict[str, int]] | None = None
    subsample_seed: int = 0
    # vanishing-point detection (see vanishing.py)
    vp_work_width: int = 640

    def __post_init__(self) -> None:
        checks = [
            (0 < self.intrusion_r_frac <= 1, "intrusion_r_frac must be in (0, 1]"),
            (0 < self.intrusion_l_frac <= 1, "intrusion_l_frac must be in (0, 1]"),
            (0 <= self.distance_d <= 1, "distance_d must be in [0, 1] (paper: d in [0, 1])"),
            (self.distance_d <= self.distance_d_max <= 1, "distance_d_max must be in [distance_d, 1]"),
            (0 <= self.near_top_frac < self.near_bottom_frac <= 1, "need 0 <= near_top_frac < near_bottom_frac <= 1"),
            (0 <= self.near_margin_frac < 0.5, "near_margin_frac must be in [0, 0.5)"),
            (self.vp_work_width >= 64, "vp_work_width must be >= 64"),
            (0 < self.near_depth <= 1, "near_depth must be in (0, 1]"),
            (0 < self.obstacle_max_cover <= 1, "obstacle_max_cover must be in (0, 1]"),
            (self.min_object_px >= 1, "min_object_px must be >= 1"),
            (all(isinstance(v, int | float) and v > 0 for v in self.real_height_m.values())
             and set(REAL_HEIGHT_M) <= set(self.real_height_m), "real_height_m needs a positive height for "
             f"every category ({', '.join(REAL_HEIGHT_M)})"),
            (all(isinstance(v, int | float) and v > 0 for v in self.camera_height_m.values())
             and set(CAMERA_HEIGHT_M) <= set(self.camera_height_m),
             "camera_height_m needs a positive height for vehicle and robot"),
        ]
        for ok, message in checks:
            if not ok:
                raise BadInput(message, field="config", fix="edit the forge config")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def fingerprint(self) -> dict[str, Any]:
        """The parameters that shape masks and prompts (subsampling and detector settings excluded)."""
        data = self.to_dict()
        for key in ("target_counts", "subsample_seed", "vp_work_width"):
            data.pop(key)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, path: str | Path | None = None) -> ForgeConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BadInput(
                f"unknown config key(s): {', '.join(unknown)}", path=path,
                fix=f"known keys: {', '.join(sorted(known))}",
            )
        for key, value in data.items():
            default = getattr(cls(), key)
            if key == "target_counts":
                ok = value is None or (isinstance(value, dict) and all(
                    isinstance(cells, dict) and all(isinstance(n, int) and n >= 0 for n in cells.values())
                    for cells in value.values()))
            elif isinstance(default, dict):
                ok = isinstance(value, dict)
            elif isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, int | float):
                ok = isinstance(value, int | float) and not isinstance(value, bool)
            else:
                ok = isinstance(value, type(default))
            if not ok:
                raise BadInput(f"config value {value!r} has the wrong type", path=path, field=key,
                               fix=f"expected something like {default!r}")
        data = dict(data)
        for key in ("real_height_m", "camera_height_m", "side_aspect"):  # a partial table overrides what it names
            if key in data:
                data[key] = {**getattr(cls(), key), **data[key]}
        return cls(**data)

    @classmethod
    def load(cls, path: str | Path) -> ForgeConfig:
        from eval_kit.strictjson import read_json

        path = Path(path)
        data = read_json(path)  # strict: NaN, duplicate keys, deep nesting, a FIFO are bad input
        if not isinstance(data, dict):
            raise BadInput("config must be a JSON object", path=path)
        return cls.from_dict(data, path=path)

    def object_height_px(self, category: str, agent: str, base_row: float, vp_row: float) -> float:
        """Perspective height in pixels of a `category` object standing on `base_row` (0 at the horizon)."""
        return self.real_height_m[category] / self.camera_height_m[agent] * max(0.0, base_row - vp_row)

    def intrusion_pixels(self, width: int) -> tuple[int, int]:
        """(r, l) in integer pixels for an image `width` pixels wide (at least 1 each)."""
        return max(1, round(self.intrusion_r_frac * width)), max(1, round(self.intrusion_l_frac * width))


def load_config(config_path: Path | None, targets: str | None = None, subsample_seed: int | None = None) -> ForgeConfig:
    """The forge config from a JSON file (or defaults), with `--targets` (`table2` or a JSON file of
    {scenario: {category: count}}) and `--subsample-seed` applied; bad files are BadInput."""
    from dataclasses import replace

    from eval_kit.movsafebench.spec import SCENARIO_CATEGORIES, TABLE2_COUNTS

    config = ForgeConfig.load(config_path) if config_path else ForgeConfig()
    if targets is not None:
        if targets == "table2":
            counts: Any = TABLE2_COUNTS
        else:
            path = Path(targets)
            if not path.exists():
                raise BadInput("targets file not found", path=path, fix="give `table2` or a JSON file")
            from eval_kit.strictjson import read_json

            counts = read_json(path)
            if not isinstance(counts, dict):
                raise BadInput("targets must be an object {scenario: {category: count}}", path=path)
            for scenario, cells in counts.items():
                if scenario not in SCENARIO_CATEGORIES or scenario == "no_edit" or not isinstance(cells, dict):
                    raise BadInput(f"unknown scenario {scenario!r} in targets", path=path, field=scenario)
                for category, n in cells.items():
                    if category not in SCENARIO_CATEGORIES[scenario]:
                        raise BadInput(f"category {category!r} is not used in {scenario}", path=path,
                                       field=f"{scenario}/{category}")
                    if not isinstance(n, int) or n < 0:
                        raise BadInput("target counts must be non-negative integers", path=path,
                                       field=f"{scenario}/{category}")
        config = replace(config, target_counts={s: dict(c) for s, c in counts.items()})
    if subsample_seed is not None:
        config = replace(config, subsample_seed=subsample_seed)
    return config
