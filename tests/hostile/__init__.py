"""Issue 40, "Nothing hangs, nothing is silently empty": hostile model servers (silent at each phase,
refusing, failing, malformed, slow under --parallel), inputs, facts and checkpoints, and the exit codes and
messages a person or a cron wrapper reads. The real command line's table of the same faults: bench/hostile.py."""
