#!/usr/bin/env python3
"""For each Android archive (.aar) in a folder, writes its classes.jar beside it as <name>.jar:
a JVM loads classes from a jar, not from an .aar (a zip holding the jar). Maven runs it before
the Robolectric tests (pom.xml), whose runner needs AndroidX Test's monitor on the classpath."""

import sys
import zipfile
from pathlib import Path

for aar in sorted(Path(sys.argv[1]).glob("*.aar")):
    with zipfile.ZipFile(aar) as archive:
        aar.with_suffix(".jar").write_bytes(archive.read("classes.jar"))
