"""Many rows updated, each with values of its own, in one statement:

    UPDATE t SET f = v.f, … FROM (VALUES (pk, f, …), …) AS v (pk, f, …) WHERE t.pk = v.pk

QuerySet.bulk_update writes the same change as one CASE WHEN pk = … THEN … END per field,
with a WHEN per row, and builds it as an expression tree that the ORM resolves node by node:
for the runner protocol's hot writes (a lease's runs, a heartbeat's devices) that building was
the largest part of the request's Python time. Same contract as bulk_update: the objects'
attributes as they are (no pre_save, so no auto_now; no signals), each value prepared as a
save prepares it (get_db_prep_save), on the default database."""

from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Field, Model


def rows_update(model: type[Model], objs: Sequence[Model], fields: Sequence[str]) -> int:
    """Write `fields` of each of `objs` (saved rows of `model`, by primary key) in one UPDATE;
    the number of rows it matched."""
    if not objs:
        return 0
    meta = model._meta
    written = [meta.get_field(name) for name in fields]
    if any(not isinstance(field, Field) or not field.concrete or field.primary_key for field in written):
        raise ValueError(f"rows_update writes concrete non-key fields only: {list(fields)}")
    pk = meta.pk
    if pk is None:
        raise ValueError(f"rows_update: {model.__name__} has no primary key")
    columns = [pk, *(field for field in written if isinstance(field, Field))]
    quote = connection.ops.quote_name
    # Each value cast to its column's type: VALUES alone would guess from the first row (text).
    row = "(" + ", ".join(f"%s::{column.db_type(connection)}" for column in columns) + ")"
    names = [quote(str(column.column)) for column in columns]
    table = quote(meta.db_table)
    sql = (f"UPDATE {table} SET {', '.join(f'{name} = v.{name}' for name in names[1:])} "  # noqa: S608 — names from the model
           f"FROM (VALUES {', '.join([row] * len(objs))}) AS v ({', '.join(names)}) "
           f"WHERE {table}.{names[0]} = v.{names[0]}")
    params: list[Any] = []
    for obj in objs:
        params.extend(column.get_db_prep_save(getattr(obj, column.attname), connection) for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)
