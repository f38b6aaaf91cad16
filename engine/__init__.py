"""Precis engine: documents, tokens, budgets, memory plans, the runtime and the strategies. No Qt."""
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("precis")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"
