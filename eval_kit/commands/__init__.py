"""Click commands, one module per command and benchmark; `eval_kit.cli` wires them into groups."""
