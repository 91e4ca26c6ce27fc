"""BD-HazardVLM's part of `hazardkit demo`: reconstruct the demo images, publish the annotations, baselines."""

from __future__ import annotations

from builder.demo import DEMO_DATE, DEMO_VERSION, Demo, DemoStep


def demo_steps(demo: Demo) -> list[DemoStep]:
    folder = demo.folder("bd_hazardvlm")

    def data() -> list[str]:
        import datasets

        demo.cli("reconstruct", "bd-hazardvlm", "--demo", "--out", folder)
        demo.cli("publish", "bd-hazardvlm", "--config", "demo_annotations", "--version", DEMO_VERSION,
                 "--date", DEMO_DATE, "--notes", "demo_annotations config: the 20 demo records and their image "
                 "manifest", "--out", folder)
        ds = datasets.load_dataset(str(folder), "demo", split="test")
        return [f"reconstructed (images kept local): {folder}/data/demo/ ({len(ds)} rows; "
                f"load_dataset('bd_hazardvlm', 'demo'))",
                f"published annotations: {folder}/data/demo_annotations/, card {folder}/README.md"]

    return [
        DemoStep("BD-HazardVLM: reconstruct the demo images from the manifest, publish the annotations", data),
        DemoStep("BD-HazardVLM: baseline runs and scores",
                 lambda: demo.baselines("bd-hazardvlm", ["random", "majority", "fixed:no_major_hazard"])),
    ]
