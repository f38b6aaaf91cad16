"""Issue 40, "Nothing hangs, nothing is silently empty": hostile inputs, facts and checkpoints."""
