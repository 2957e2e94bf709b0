"""Deterministic response bodies: the same bytes on every protocol, run and runner.

Pseudo-random (incompressible) content so that no layer can cheat with compression, and
seeded by name so that two runners serve byte-identical files.
"""

from __future__ import annotations

import json
import random
from functools import cache, lru_cache
from importlib import resources

# Sizes of the five JPEGs of the Unity "test B" download (seed 003).
UNITY_SIZES = (241776, 276101, 465284, 455135, 163763)
BLOCK_SIZE = 1 << 20  # /bytes/{n} repeats one 1 MiB block: O(1) memory for 50 MB answers.


@lru_cache(maxsize=1)
def file_sizes() -> dict[str, int]:
    text = resources.files("latencylab_tools.data").joinpath("seed_mid_image_series.json").read_text()
    mid = json.loads(text)["image_bytes"]
    sizes = {f"mid-{i + 1:02d}": n for i, n in enumerate(mid)}
    sizes.update({f"unity-{i + 1}": n for i, n in enumerate(UNITY_SIZES)})
    return sizes


@cache
def file_bytes(name: str) -> bytes:
    """Raises KeyError for an unknown name."""
    size = file_sizes()[name]
    return random.Random(f"latencylab:file:{name}").randbytes(size)


@lru_cache(maxsize=1)
def _block() -> memoryview:
    return memoryview(random.Random("latencylab:bytes").randbytes(BLOCK_SIZE))


def byte_chunks(n: int) -> list[memoryview]:
    """n bytes as views over the shared block (no copy)."""
    block = _block()
    full, rest = divmod(n, BLOCK_SIZE)
    chunks = [block] * full
    if rest:
        chunks.append(block[:rest])
    return chunks


def byte_range(n: int) -> bytes:
    """The same bytes as byte_chunks(n), materialised (what a client must receive: tests)."""
    return b"".join(byte_chunks(n))
