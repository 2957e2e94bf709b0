"""PostgreSQL's binary COPY format, built column by column with numpy.

Binary COPY: a signature, then per row an int16 field count and per field an int32
length (-1 = NULL) and the value in network byte order; an int16 -1 ends the data.
Columns whose width is the same on every row (the ids, every column never or always
null, texts of one length) are laid out as numpy records, one per row; the others (a
timestamp null on some rows only, texts of several lengths) as one byte string per row.
COPY takes the columns in the order we name them: uniform ones first.

Nothing here knows results_sample: apps.results.ingest.store says which column is which.
"""

import uuid
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
TRAILER = b"\xff\xff"
NULL = b"\xff\xff\xff\xff"
BOOLEANS = {True: b"\x00\x00\x00\x01\x01", False: b"\x00\x00\x00\x01\x00", None: NULL}
_FIELD_COUNT = "#fields"


def encode_text(value: str) -> bytes:
    data = value.encode()
    return len(data).to_bytes(4, "big") + data


def encode_id(value: Any) -> bytes:
    """A primary key as its foreign key column's value: uuid, or bigint (BigAutoField)."""
    if isinstance(value, uuid.UUID):
        return b"\x00\x00\x00\x10" + value.bytes
    return b"\x00\x00\x00\x08" + int(value).to_bytes(8, "big", signed=True)


class CopyRows:
    """The binary COPY rows of n rows, assembled column by column."""

    def __init__(self, n: int) -> None:
        self.n = n
        # column → its fields in the row record [(field, numpy type, value)], or one byte string per row
        self.parts: dict[str, list[tuple[str, str, Any]] | list[bytes]] = {}

    def uniform(self, column: str) -> bool:
        return isinstance(self.parts[column][0], tuple)

    def constant(self, column: str, chunk: bytes) -> None:
        """The same length-prefixed value (or NULL) on every row."""
        self.parts[column] = [(column, f"V{len(chunk)}", np.frombuffer(chunk, f"V{len(chunk)}")[0])]

    def lookup(self, column: str, values: Sequence[Any], encode: dict[Any, bytes]) -> None:
        """A column of few distinct values (text, booleans, ids), through their encodings."""
        widths = {len(chunk) for chunk in encode.values()}
        if len(encode) == 1:
            self.constant(column, next(iter(encode.values())))
        elif len(widths) == 1:
            width = widths.pop()
            data = b"".join(map(encode.__getitem__, values))
            self.parts[column] = [(column, f"V{width}", np.frombuffer(data, f"V{width}"))]
        else:
            self.parts[column] = list(map(encode.__getitem__, values))

    def numbers(self, column: str, dtype: str, values: np.ndarray, present: np.ndarray) -> None:
        """Numbers (0 where null) with their present mask, as the big-endian `dtype`."""
        size = np.dtype(dtype).itemsize
        if present.all():
            self.parts[column] = [(f"{column}#", ">i4", size), (column, dtype, values)]
        elif not present.any():
            self.constant(column, NULL)
        else:  # null on some rows only: one byte string per row
            where = np.flatnonzero(present)
            records = np.empty(len(where), dtype=[("size", ">i4"), ("value", dtype)])
            records["size"] = size
            records["value"] = values[where]
            chunks = [NULL] * self.n
            for row, chunk in zip(where.tolist(), records.view(f"V{records.itemsize}").tolist(), strict=True):
                chunks[row] = chunk
            self.parts[column] = chunks

    def build(self, order: list[str] | None) -> tuple[list[str], bytes]:
        """(the COPY column order, the rows in it). Without an order: the uniform columns
        first, then the others, each in the order they were added."""
        if order is None:
            order = sorted(self.parts, key=lambda column: not self.uniform(column))
        pieces: list[Sequence[bytes]] = []  # per-row byte strings, one list per piece of the row
        fields: list[tuple[str, str, Any]] = [(_FIELD_COUNT, ">i2", len(self.parts))]
        for column in order:
            part = self.parts[column]
            if isinstance(part[0], tuple):
                fields.extend(part)
                continue
            if fields:
                pieces.append(self._records(fields))
                fields = []
            pieces.append(part)
        if fields:
            pieces.append(self._records(fields))
        if len(pieces) == 1:
            return order, b"".join(pieces[0])
        return order, b"".join(chain.from_iterable(zip(*pieces, strict=True)))

    def _records(self, fields: list[tuple[str, str, Any]]) -> list[bytes]:
        record = np.empty(self.n, dtype=[(name, dtype) for name, dtype, _ in fields])
        for name, _, value in fields:
            record[name] = value
        return record.view(f"V{record.itemsize}").tolist()


class ColumnRows:
    """The binary COPY rows of n rows, assembled column by column with no step per row (the
    columnar upload). A column is either fixed-width (an n × w byte matrix: the same width on
    every row) or variable (per row, a slice of a byte buffer: `blob[starts[i]:starts[i] +
    lengths[i]]`). Rows of fixed-width columns only are one matrix; otherwise the rows are
    laid out by offsets computed for all rows at once and every column is scattered into place."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.parts: dict[str, np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def constant(self, column: str, chunk: bytes) -> None:
        self.parts[column] = np.broadcast_to(np.frombuffer(chunk, np.uint8), (self.n, len(chunk)))

    def numbers(self, column: str, dtype: str, values: np.ndarray, present: np.ndarray) -> None:
        """Numbers (anything where null) with their present mask, as the big-endian `dtype`."""
        if not present.any():
            self.constant(column, NULL)
            return
        size = np.dtype(dtype).itemsize
        records = np.empty(self.n, dtype=[("size", ">i4"), ("value", dtype)])
        records["size"] = np.where(present, size, -1)
        records["value"] = values
        matrix = records.view(np.uint8).reshape(self.n, 4 + size)
        if present.all():
            self.parts[column] = matrix
        else:  # a null is the first 4 bytes of its record: the length -1
            self.parts[column] = (matrix.reshape(-1), np.arange(self.n) * (4 + size), np.where(present, 4 + size, 4))

    def table(self, column: str, codes: np.ndarray, encoded: Sequence[bytes]) -> None:
        """Row i's field is encoded[codes[i]] (length-prefixed values or NULL; -1 is the last).
        Fixed-width when the values these rows use are all one width."""
        if len(encoded) == 1 or not len(codes) or codes.min() == codes.max():
            self.constant(column, encoded[codes[0]] if len(codes) else encoded[-1])
            return
        widths = np.fromiter(map(len, encoded), np.int64, len(encoded))
        blob = np.frombuffer(b"".join(encoded), np.uint8)
        offsets = np.cumsum(widths) - widths
        lengths = widths[codes]
        if (lengths == lengths[0]).all():
            # the values of that width as a matrix (the others' rows unused), one row taken per row
            width = int(lengths[0])
            matrix = np.zeros((len(encoded), width), np.uint8)
            same = np.flatnonzero(widths == width)
            matrix[same] = blob[offsets[same][:, None] + np.arange(width)]
            self.parts[column] = matrix[codes]
        else:
            self.parts[column] = (blob, offsets[codes], lengths)

    def build(self, order: list[str] | None) -> tuple[list[str], bytes]:
        """(the COPY column order, the rows in it). Without an order: the fixed-width columns
        first, then the others."""
        if order is None:
            order = sorted(self.parts, key=lambda column: isinstance(self.parts[column], tuple))
        count = np.broadcast_to(np.frombuffer(len(self.parts).to_bytes(2, "big"), np.uint8), (self.n, 2))
        segments: list[Any] = []
        run: list[np.ndarray] = [count]
        for column in order:
            part = self.parts[column]
            if isinstance(part, tuple):
                if run:
                    segments.append(np.hstack(run))
                run = []
                segments.append(part)
            else:
                run.append(part)
        if run:
            segments.append(np.hstack(run))
        if len(segments) == 1:
            return order, segments[0].tobytes()
        lengths = [np.full(self.n, s.shape[1]) if isinstance(s, np.ndarray) else s[2] for s in segments]
        row_lengths = np.sum(lengths, axis=0)
        position = np.cumsum(row_lengths) - row_lengths  # where each row's next field goes
        out = np.empty(int(row_lengths.sum()), np.uint8)
        for segment, length in zip(segments, lengths, strict=True):
            if isinstance(segment, np.ndarray):
                out[(position[:, None] + np.arange(segment.shape[1])).reshape(-1)] = segment.reshape(-1)
            else:
                blob, starts, _ = segment
                within = np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length)
                out[np.repeat(position, length) + within] = blob[np.repeat(starts, length) + within]
            position += length
        return order, out.tobytes()
