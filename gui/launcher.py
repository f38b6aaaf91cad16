"""The `precis` console script. Subcommands run headless (models/cli/) and never import Qt;
with no arguments, the window opens."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv:
        from precis.models.cli.main import main as cli_main
        return cli_main(argv)
    from precis.gui.app import run_app
    return run_app()


if __name__ == "__main__":
    sys.exit(main())
