"""MovSafeBench's part of `hazardkit demo`: HazardForge on synthetic scenes, the demo config, baselines."""

from __future__ import annotations

from builder.demo import DEMO_DATE, DEMO_VERSION, Demo, DemoStep


def demo_steps(demo: Demo) -> list[DemoStep]:
    folder = demo.folder("movsafebench")

    def data() -> list[str]:
        import datasets

        demo.cli("publish", "movsafebench", "--config", "demo", "--version", DEMO_VERSION, "--date", DEMO_DATE,
                 "--notes", "demo config: HazardForge on synthetic scenes", "--out", folder)
        ds = datasets.load_dataset(str(folder), "demo", split="test")
        return ["forge run: out/demo/forge/run (hazardkit forge status out/demo/forge/run)",
                f"dataset: {folder}/data/demo/ ({len(ds)} rows; load_dataset('movsafebench', 'demo'))",
                f"card: {folder}/README.md, figure {folder}/assets/samples_demo.png"]

    return [
        DemoStep("MovSafeBench: synthetic scenes -> HazardForge -> publish demo config -> load_dataset", data),
        DemoStep("MovSafeBench: baseline runs and scores",
                 lambda: demo.baselines("movsafebench", ["random", "majority", "fixed:straight"])),
    ]
