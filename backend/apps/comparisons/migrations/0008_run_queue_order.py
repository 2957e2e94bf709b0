"""The lease order on the run itself: `queue_order`, the comparison's created_at, and a partial
index over the queued runs of a pool in lease order (apps.scheduler.leasing._next_run_for).

The database sets queue_order, as it notifies waiting runners (0005_run_queued_notify): on every
insert, whenever a run becomes queued (planned, requeued after a failed attempt or an expired
lease, extended by run-until-decided), and whenever an update would leave it empty (a model
instance saved again before it was read back), so no code path that queues a run can leave it
out of order. Existing rows are filled from their comparisons."""

from django.db import migrations, models

TRIGGER = """
CREATE OR REPLACE FUNCTION latencylab_run_queue_order() RETURNS trigger AS $$
BEGIN
    SELECT created_at INTO NEW.queue_order FROM comparisons_comparison WHERE id = NEW.comparison_id;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER run_inserted_queue_order BEFORE INSERT ON comparisons_run
    FOR EACH ROW EXECUTE FUNCTION latencylab_run_queue_order();
CREATE TRIGGER run_queued_queue_order BEFORE UPDATE ON comparisons_run
    FOR EACH ROW WHEN ((NEW.status = 'queued' AND OLD.status IS DISTINCT FROM 'queued')
                       OR NEW.queue_order IS NULL
                       OR NEW.comparison_id IS DISTINCT FROM OLD.comparison_id)
    EXECUTE FUNCTION latencylab_run_queue_order();

UPDATE comparisons_run AS run SET queue_order = comparison.created_at
    FROM comparisons_comparison AS comparison WHERE comparison.id = run.comparison_id;
"""

DROP = """
DROP TRIGGER IF EXISTS run_queued_queue_order ON comparisons_run;
DROP TRIGGER IF EXISTS run_inserted_queue_order ON comparisons_run;
DROP FUNCTION IF EXISTS latencylab_run_queue_order();
"""


class Migration(migrations.Migration):

    dependencies = [
        ('comparisons', '0007_failure_attribution'),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='queue_order',
            field=models.DateTimeField(blank=True, editable=False, null=True,
                                       help_text="the comparison's created_at, copied by the database when queued"),
        ),
        migrations.RunSQL(TRIGGER, DROP),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(condition=models.Q(('status', 'queued')),
                               fields=['pool', 'queue_order', 'slot', 'network_profile'], name='run_queue_order_idx'),
        ),
    ]
