"""Hostile model servers (issue 40, "Nothing hangs, nothing is silently empty"): servers that accept and
never answer at each phase, refuse, fail, send what is not a stream, or are slow under --parallel; and
the exit codes and messages a person or a cron wrapper reads. All against tests/openai_server.py."""
