"""Unpacks a Go toolchain zip from the Go module proxy (golang.org/toolchain@v0.0.1-goX.linux-ARCH)
into a directory, dropping the module path prefix and keeping the files' modes (zipfile does
not, and go's binaries must stay executable).

    python3 infra/bin/unpack_go.py toolchain.zip var/go/go1.26.0
"""

import os
import sys
import zipfile
from pathlib import Path


def main(archive: str, target: str) -> None:
    out = Path(target)
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            parts = info.filename.split("/", 2)  # golang.org / toolchain@v… / <inner>
            inner = parts[2] if len(parts) == 3 else ""
            if not inner or info.is_dir():
                continue
            dest = out / inner
            dest.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(dest, "wb") as dst:
                dst.write(src.read())
            mode = (info.external_attr >> 16) & 0o777
            os.chmod(dest, mode or 0o644)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
