"""gzip made of parts compressed apart decodes, whole, with every decoder a client uses: Python's
gzip module, zlib as a single-member gzip stream (what browsers and curl decode), and gunzip."""

import gzip
import random
import subprocess
import zlib

import pytest

from apps.results.readers.gzip_splice import deflate_part, gzip_spliced

rng = random.Random(7)
MIDDLE = ("".join(f'"k{i}":{rng.random()},' for i in range(60_000)) + '"end":1').encode()  # ~1.4 MB


@pytest.mark.parametrize("before, middle, after", [
    (b'{"status":"finished",', MIDDLE, b',"analysis_version":3}'),
    (b"{", MIDDLE, b"}"),
    (b"", b"", b'{"whole":"document"}'),
    ('{"nom":"é ü ∆",'.encode(), '"x":"ß"'.encode(), b"}"),
])
def test_the_spliced_gzip_decodes_to_the_parts_joined(before: bytes, middle: bytes, after: bytes, tmp_path) -> None:
    packed = gzip_spliced(before, middle, deflate_part(middle), after)
    whole = before + middle + after
    assert gzip.decompress(packed) == whole
    single_member = zlib.decompressobj(zlib.MAX_WBITS | 16)
    assert single_member.decompress(packed) + single_member.flush() == whole
    assert single_member.eof
    assert not single_member.unused_data
    (tmp_path / "doc.gz").write_bytes(packed)
    assert subprocess.run(["gunzip", "-c", str(tmp_path / "doc.gz")], check=True, capture_output=True).stdout == whole


def test_the_middle_compressed_ahead_is_most_of_the_work() -> None:
    deflated = deflate_part(MIDDLE)
    packed = gzip_spliced(b"{", MIDDLE, deflated, b"}")
    assert len(deflated) < len(MIDDLE) / 2
    assert len(packed) - len(deflated) < 64  # the header, two tiny parts and the trailer


def test_a_wrong_middle_is_caught_by_the_crc() -> None:
    packed = gzip_spliced(b"{", MIDDLE, deflate_part(MIDDLE), b"}")
    broken = gzip_spliced(b"{", MIDDLE[:-1] + b"2", deflate_part(MIDDLE), b"}")
    assert packed != broken
    with pytest.raises(gzip.BadGzipFile):
        gzip.decompress(broken)
