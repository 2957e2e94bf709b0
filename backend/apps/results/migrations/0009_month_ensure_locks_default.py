"""results_sample_month_ensure() (migration 0007) locks the DEFAULT partition before it moves
that month's rows out of it. Without the lock, a sample of that month stored by a transaction
still open during the move stayed in DEFAULT unseen, and the ATTACH that followed (which
waits for that transaction) then found it there and failed: the month got no partition and
its samples kept landing in DEFAULT. The lock is ACCESS EXCLUSIVE, what ATTACH takes anyway,
taken earlier: a lock upgrade later could deadlock with a reader.

The function's text is 0007's with the lock added, so the two cannot drift apart: 0007 stays
the one place its body is written."""

from importlib import import_module

from django.db import migrations

_INITIAL = import_module("apps.results.migrations.0007_sample_partitioned").FUNCTIONS
_ENSURE = _INITIAL[_INITIAL.index("CREATE FUNCTION results_sample_month_ensure"):].replace(
    "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
_BEFORE_MOVE = "    SELECT * INTO bounds FROM results_sample_month_bounds(month);\n"
_LOCK = ("    -- Inserts of this month into DEFAULT finish before the move, and none start until the\n"
         "    -- partition is attached.\n"
         "    LOCK TABLE results_sample_default IN ACCESS EXCLUSIVE MODE;\n")
assert _ENSURE.count(_BEFORE_MOVE) == 1, "0007's function text changed: place the lock again"

ENSURE_LOCKING = _ENSURE.replace(_BEFORE_MOVE, _LOCK + _BEFORE_MOVE)


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0008_sample_removal"),
    ]

    operations = [
        migrations.RunSQL(ENSURE_LOCKING, _ENSURE),
    ]
