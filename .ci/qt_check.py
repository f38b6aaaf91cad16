#!/usr/bin/env python3
"""Before `make run` opens the window: can Qt's platform plugin load on this machine?

On a fresh Debian/Ubuntu, Qt's xcb plugin (PySide6/Qt/plugins/platforms/libqxcb.so) needs system
libraries the wheel does not ship (libxcb-icccm4, libxcb-keysyms1, and for Qt >= 6.5 libxcb-cursor0,
among others). Without them Qt aborts with "no Qt platform plugin could be initialized" and nothing
tells the user why. This script asks `ldd` what is missing, installs the Debian packages that provide
it where it can (apt-get as root, or through passwordless sudo), and otherwise stops with the exact
command to run. It also says so when there is no display to open a window on.

Usage: ``qt_check.py PYTHON`` (the venv's python, which has PySide6). Exit 0: the window can open.
Stdlib only; the decisions are pure functions, tested in tests/test_packaging.py.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

# Shared library -> the Debian/Ubuntu package that ships it (what Qt 6's xcb plugin links against).
DEBIAN_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1", "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0", "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-randr.so.0": "libxcb-randr0", "libxcb-shape.so.0": "libxcb-shape0", "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1", "libxcb-sync.so.1": "libxcb-sync1", "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-render.so.0": "libxcb-render0", "libxcb-util.so.1": "libxcb-util1", "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb.so.1": "libxcb1", "libX11-xcb.so.1": "libx11-xcb1", "libX11.so.6": "libx11-6",
    "libxkbcommon.so.0": "libxkbcommon0", "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libEGL.so.1": "libegl1", "libGL.so.1": "libgl1", "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1", "libfreetype.so.6": "libfreetype6", "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0", "libICE.so.6": "libice6", "libSM.so.6": "libsm6",
}
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc")


def missing_libraries(ldd_output: str) -> list[str]:
    """The libraries `ldd` reports as "not found", once each, in order."""
    out: list[str] = []
    for line in ldd_output.splitlines():
        if "=> not found" in line:
            name = line.split("=>")[0].strip()
            if name not in out:
                out.append(name)
    return out


def packages_for(libraries: list[str]) -> tuple[list[str], list[str]]:
    """(Debian packages to install, libraries no known package provides)."""
    packages, unknown = [], []
    for lib in libraries:
        package = DEBIAN_PACKAGES.get(lib)
        if package is None:
            unknown.append(lib)
        elif package not in packages:
            packages.append(package)
    return packages, unknown


def install_command(packages: list[str], is_root: bool, has_passwordless_sudo: bool) -> list[str] | None:
    """The apt-get command this process can run itself, or None when a person must run it."""
    if is_root:
        return ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    if has_passwordless_sudo:
        return ["sudo", "-n", "apt-get", "install", "-y", "--no-install-recommends", *packages]
    return None


def _say(text: str) -> None:
    print(f"[precis] {text}", file=sys.stderr)


def _xcb_plugin(python: str) -> Path | None:
    code = "import PySide6, pathlib; print(pathlib.Path(PySide6.__file__).parent)"
    result = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    plugin = Path(result.stdout.strip()) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.is_file() else None


def _missing(plugin: Path) -> list[str]:
    return missing_libraries(subprocess.run(["ldd", str(plugin)], capture_output=True, text=True).stdout)


def _passwordless_sudo() -> bool:
    if shutil.which("sudo") is None:
        return False
    return subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0


def main(argv: list[str]) -> int:
    python = argv[1] if len(argv) > 1 else sys.executable
    if not sys.platform.startswith("linux"):
        return 0
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in HEADLESS_PLATFORMS:
        return 0
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        _say("There is no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset). Run `make run` "
             "from a desktop session, or on a server under a virtual screen: `xvfb-run -a make run`. The command "
             "line works without a display: `.venv/bin/precis --help`.")
        return 1
    plugin = _xcb_plugin(python)
    if plugin is None or shutil.which("ldd") is None:
        return 0      # not an xcb build of Qt (or no ldd): let Qt speak for itself
    missing = _missing(plugin)
    if not missing:
        return 0
    packages, unknown = packages_for(missing)
    _say(f"Qt's window plugin needs system libraries that are missing: {', '.join(missing)}.")
    if unknown:
        _say(f"No known package for {', '.join(unknown)}; install what provides them (apt-file search NAME).")
    if not packages:
        return 1
    command = install_command(packages, os.geteuid() == 0, _passwordless_sudo()) \
        if shutil.which("apt-get") else None
    if command is None:
        manual = "sudo apt-get install -y " + " ".join(packages) if shutil.which("apt-get") else \
            "your system's package manager (" + ", ".join(packages) + " on Debian/Ubuntu)"
        _say(f"Install them, then run `make run` again:\n    {manual}")
        return 1
    _say("Installing them: " + " ".join(command))
    update = (["sudo", "-n"] if command[0] == "sudo" else []) + ["apt-get", "update", "-qq"]
    subprocess.run(update, check=False)
    if subprocess.run(command).returncode != 0 or _missing(plugin):
        _say("Installing failed. Run this yourself, then `make run` again:\n    sudo apt-get install -y "
             + " ".join(packages))
        return 1
    _say("Done: Qt's window plugin has what it needs.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
