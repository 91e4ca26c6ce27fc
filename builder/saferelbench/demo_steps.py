"""SafeRelBench's part of `hazardkit demo`: validate and publish the demo samples, baseline plans."""

from __future__ import annotations

from builder.demo import DEMO_DATE, DEMO_VERSION, Demo, DemoStep


def demo_steps(demo: Demo) -> list[DemoStep]:
    folder = demo.folder("saferelbench")

    def data() -> list[str]:
        import datasets

        demo.cli("publish", "saferelbench", "--config", "demo", "--version", DEMO_VERSION, "--date", DEMO_DATE,
                 "--notes", "demo config: the matched pairs saferel generate makes from "
                 "manifests/saferelbench/demo.json", "--out", folder)  # as `make demo-data`: the committed card
        ds = datasets.load_dataset(str(folder), "demo", split="test")
        return [f"dataset: {folder}/data/demo/ ({len(ds)} samples; load_dataset('saferelbench', 'demo'))"]

    return [
        DemoStep("SafeRelBench: validate and publish the demo samples", data),
        DemoStep("SafeRelBench: baseline plans (empty, reference minus mitigations, reference oracle)",
                 lambda: demo.baselines("saferelbench", ["fixed:empty", "fixed:unmitigated", "fixed:reference"])),
    ]
