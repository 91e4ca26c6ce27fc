"""Quality check (paper 3.2.5): completeness and direction of the inserted object, from crops under the mask.

`Verdict`, the `Checker` protocol and answer parsing in `base`; `VLMChecker` (transformers, Qwen3-VL by default)
in `vlm`; `HeuristicChecker` (pixel differences, for the compositing editor) in `heuristic`. Heavy imports are
lazy: importing this package needs neither torch nor transformers.
"""

from builder.movsafebench.hazardforge.quality.base import (
           Checker,
           Verdict,
           crop_pair,
           decide,
           parse_completeness,
           parse_direction,
)
from builder.movsafebench.hazardforge.quality.heuristic import HeuristicChecker
from builder.movsafebench.hazardforge.quality.vlm import DEFAULT_MODEL_ID, VLMChecker

__all__ = ["DEFAULT_MODEL_ID", "Checker", "HeuristicChecker", "VLMChecker", "Verdict", "crop_pair", "decide",
           "parse_completeness", "parse_direction"]
