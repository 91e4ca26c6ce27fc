"""The text tables `hazardkit score saferelbench` prints (paper-style), from the JSON result."""

from __future__ import annotations

from typing import Any

from eval_kit.textreport import render


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_tables(result: dict[str, Any]) -> str:
    return render(lambda console: _draw(console, result), width=160)


def _draw(console, result: dict[str, Any]) -> None:
    from rich.table import Table

    for source in ("plans", "traces"):
        block = result.get(source)
        if not block:
            continue
        for title, key in (("by relation x split", "by_relation_split"), ("by risk type", "by_risk_type"),
                           ("by split", "by_split"), ("by prompt variant", "by_variant")):
            table = Table(title=f"SafeRelBench {source}: {title}")
            for col in ("group", "n", "SR", "SSR", "SRec", "SSR/SR"):
                table.add_column(col, justify="right" if col != "group" else "left")
            for name, m in block[key].items():
                table.add_row(name, str(m["n"]), _f(m["SR"]), _f(m["SSR"]), _f(m["SRec"]), _f(m["SSR/SR"]))
            console.print(table)
        console.print(f"{source}: SR {_f(block['SR'])}  SSR {_f(block['SSR'])}  SRec {_f(block['SRec'])}  "
                      f"SSR/SR {_f(block['SSR/SR'])}  ({block['n']} episodes, unparsed {block['unparsed']}, "
                      f"missing {block['missing']})")
        if block.get("unparsed_lines"):
            console.print(f"{source}: {block['unparsed_lines']} plan line(s) looked like actions or sat inside a "
                          "plan and were not used, e.g.:", markup=False)
            for example in block.get("unparsed_examples", [])[:5]:
                for line in example["lines"][:2]:
                    console.print(f"  {example['id']} ({example['variant']}): {line[:120]}", markup=False)


