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
