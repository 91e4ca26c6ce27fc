"""One module per benchmark: features, label spaces, prompts and output parsers (the spec in code)."""
