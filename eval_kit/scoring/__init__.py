"""Plain scoring functions over arrays, one module per benchmark; the `evaluate` modules and CLI call these."""
