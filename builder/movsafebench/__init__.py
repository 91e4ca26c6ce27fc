"""MovSafeBench, builder side: source adapters (`sources/`), the HazardForge pipeline (`hazardforge/`), the
publisher and its card template, the demo steps, and the JSON Schemas of the build inputs (`schemas/`).
Its eval side is `eval_kit/movsafebench/`.
"""

from eval_kit.schemas import add_schema_package

add_schema_package(__name__)
