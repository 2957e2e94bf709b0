"""The real tools' transcripts the simulator replays (transcripts/, sources in its
README.md): `am instrument -w -r` in each of its forms, Gradle's console, xcodebuild's test and
build output. A transcript may open with `#: ` lines naming its source (the xcodebuild ones
do); they are not part of the output. Only the standard library: bin/'s fakes run with any
python3."""

from __future__ import annotations

from pathlib import Path
from string import Template

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"
# What AndroidJUnitRunner prints when the test starts (status code 1): the simulator sends it
# before the harness runs, the rest of a transcript once it ended.
STARTED = "INSTRUMENTATION_STATUS_CODE: 1\n"
SOURCE = "#: "


def transcript(name: str, **values: object) -> str:
    """A transcript with its `${name}` values filled in (others, e.g. Java's `Outer$1`, stay)."""
    text = "".join(line for line in (TRANSCRIPTS / name).read_text().splitlines(keepends=True)
                   if not line.startswith(SOURCE))
    return Template(text).safe_substitute({key: str(value) for key, value in values.items()})


def split_at_start(text: str) -> tuple[str, str]:
    """(what am instrument prints up to the test's start, the rest); ("", text) when no test starts."""
    head, sep, tail = text.partition(STARTED)
    return (head + sep, tail) if sep else ("", text)


def source(name: str) -> str:
    """What a transcript's `#: ` lines say of where it comes from ("" when it has none)."""
    return " ".join(line[len(SOURCE):].strip() for line in (TRANSCRIPTS / name).read_text().splitlines()
                    if line.startswith(SOURCE))
