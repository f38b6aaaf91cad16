"""Model files: GGUF headers and facts, the bundled default model, the headless command line."""
