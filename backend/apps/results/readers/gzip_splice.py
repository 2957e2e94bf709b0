"""A gzip file made of parts compressed apart: the large part of a document compressed once and
kept, the small parts around it compressed per request.

Each part is raw deflate ended with a sync flush (non-final blocks, byte-aligned) and the last
with a finish (the final block); a new compressor never refers back across a part, so the
concatenation is one valid deflate stream, wrapped in one gzip member (RFC 1952: header, the
stream, CRC-32 and length of the whole) that every gzip decoder reads (pigz builds its output
the same way)."""

import struct
import zlib

LEVEL = 6  # Django's GZipMiddleware's
_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # gzip, deflate, no flags, no mtime, unknown OS


def deflate_part(data: bytes) -> bytes:
    """A middle part, compressed ahead (sync-flushed: it can be followed)."""
    return _deflate(data, last=False)


def _deflate(data: bytes, *, last: bool) -> bytes:
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)


def gzip_spliced(before: bytes, middle: bytes, middle_deflated: bytes, after: bytes) -> bytes:
    """gzip of before + middle + after, compressing only `before` and `after` (`middle_deflated`
    is deflate_part(middle)). The middle's bytes only continue the CRC (about a millisecond per
    megabyte; Python's zlib has no crc32_combine)."""
    crc = zlib.crc32(after, zlib.crc32(middle, zlib.crc32(before)))
    length = len(before) + len(middle) + len(after)
    return b"".join([_HEADER, _deflate(before, last=False), middle_deflated, _deflate(after, last=True),
                     struct.pack("<II", crc & 0xFFFFFFFF, length & 0xFFFFFFFF)])
