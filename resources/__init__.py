"""Package data: the sample document (and, later, rule presets, icons, style sheet)."""
