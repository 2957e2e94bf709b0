"""The real tools' transcripts the simulator replays (transcripts/, sources in its
README.md): `am instrument -w -r` in each of its forms, Gradle's console. Only the standard
library: bin/fastlane runs with any python3."""

from __future__ import annotations

from pathlib import Path
from string import Template

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"
# What AndroidJUnitRunner prints when the test starts (status code 1): the simulator sends it
# before the harness runs, the rest of a transcript once it ended.
STARTED = "INSTRUMENTATION_STATUS_CODE: 1\n"


def transcript(name: str, **values: object) -> str:
    """A transcript with its `${name}` values filled in (others, e.g. Java's `Outer$1`, stay)."""
    text = (TRANSCRIPTS / name).read_text()
    return Template(text).safe_substitute({key: str(value) for key, value in values.items()})


def split_at_start(text: str) -> tuple[str, str]:
    """(what am instrument prints up to the test's start, the rest); ("", text) when no test starts."""
    head, sep, tail = text.partition(STARTED)
    return (head + sep, tail) if sep else ("", text)
