"""Where the native programs built from device-runner/tools/native (Go, quic-go) are found: the
checkout's native/bin (what `make bootstrap` builds), else $PATH for an installed runner."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHECKOUT_BIN = Path(__file__).resolve().parent.parent / "native" / "bin"


class NativeProgramMissing(RuntimeError):
    pass


def native_program(name: str) -> str:
    """Absolute path of the program `name` (e.g. latencylab-h3-probe); raises
    NativeProgramMissing, saying how to build it, when neither place has it."""
    built = CHECKOUT_BIN / name
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    found = shutil.which(name)
    if found:
        return found
    raise NativeProgramMissing(
        f"{name} is not built: run `make bootstrap` (it builds device-runner/tools/native with Go) "
        f"or put {name} on PATH")
