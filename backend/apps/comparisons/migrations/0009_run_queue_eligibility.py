"""Only the runs a device may take in the queue it walks (apps.scheduler.leasing._next_run_for):
a suspended organization's queued runs out of the lease queue, and one partial index of the
queue per platform.

queue_order is empty while the run's organization is suspended. The database keeps it so, as
it keeps the lease order (0008_run_queue_order):
- the trigger that sets queue_order leaves it empty when the organization is suspended, and
  it now also fires when a write changes the queue_order of a queued run (a model instance
  saved with a value read before a suspension or a reinstatement), so the database alone
  decides it;
- a trigger on the organization table, when it is suspended or reinstated, writes every
  queued run of its comparisons again, which the first trigger empties or fills with the
  comparison's created_at: a reinstated organization's runs are back in their original place;
- a run that becomes queued (planned, requeued, extended) locks its organization's row
  (FOR SHARE) until its transaction ends: a suspension or reinstatement waits for it and then
  sees the run, or the run waits for it and then sees the organization's new state, so no run
  is queued on the wrong side of either.

The notifications that wake waiting runners (0005_run_queued_notify) follow the queue: none
for a run queued while its organization is suspended, and one per pool for the runs that
come back when it is reinstated.

The queue's partial index, one per platform (`platforms @> '["android"]'`), so that an
Android device's pick never reads an iOS-only run. Existing queued runs of suspended
organizations are taken out of the queue."""

from django.db import migrations, models

QUEUE_ORDER = """
CREATE OR REPLACE FUNCTION latencylab_run_queue_order() RETURNS trigger AS $$
DECLARE
    suspended timestamptz;
BEGIN
    IF NEW.status = 'queued' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'queued') THEN
        -- Becoming queued: wait for, or hold off, a suspension or reinstatement of the organization.
        SELECT comparison.created_at, organization.suspended_at INTO NEW.queue_order, suspended
            FROM comparisons_comparison AS comparison
            JOIN accounts_organization AS organization ON organization.id = comparison.organization_id
            WHERE comparison.id = NEW.comparison_id
            FOR SHARE OF organization;
    ELSE
        SELECT comparison.created_at, organization.suspended_at INTO NEW.queue_order, suspended
            FROM comparisons_comparison AS comparison
            JOIN accounts_organization AS organization ON organization.id = comparison.organization_id
            WHERE comparison.id = NEW.comparison_id;
    END IF;
    IF NEW.status = 'queued' AND suspended IS NOT NULL THEN
        NEW.queue_order := NULL;
    END IF;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

DROP TRIGGER run_queued_queue_order ON comparisons_run;
CREATE TRIGGER run_queued_queue_order BEFORE UPDATE ON comparisons_run
    FOR EACH ROW WHEN ((NEW.status = 'queued' AND OLD.status IS DISTINCT FROM 'queued')
                       OR NEW.queue_order IS NULL
                       OR (NEW.status = 'queued' AND NEW.queue_order IS DISTINCT FROM OLD.queue_order)
                       OR NEW.comparison_id IS DISTINCT FROM OLD.comparison_id)
    EXECUTE FUNCTION latencylab_run_queue_order();

CREATE OR REPLACE FUNCTION latencylab_organization_queue() RETURNS trigger AS $$
BEGIN
    -- Written again, each queued run's queue_order is decided by latencylab_run_queue_order.
    UPDATE comparisons_run SET queue_order = NULL
        WHERE status = 'queued'
          AND comparison_id IN (SELECT id FROM comparisons_comparison WHERE organization_id = NEW.id);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER organization_suspended_queue AFTER UPDATE OF suspended_at ON accounts_organization
    FOR EACH ROW WHEN ((OLD.suspended_at IS NULL) IS DISTINCT FROM (NEW.suspended_at IS NULL))
    EXECUTE FUNCTION latencylab_organization_queue();
"""

QUEUE_ORDER_BEFORE = """
DROP TRIGGER IF EXISTS organization_suspended_queue ON accounts_organization;
DROP FUNCTION IF EXISTS latencylab_organization_queue();

CREATE OR REPLACE FUNCTION latencylab_run_queue_order() RETURNS trigger AS $$
BEGIN
    SELECT created_at INTO NEW.queue_order FROM comparisons_comparison WHERE id = NEW.comparison_id;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

DROP TRIGGER run_queued_queue_order ON comparisons_run;
CREATE TRIGGER run_queued_queue_order BEFORE UPDATE ON comparisons_run
    FOR EACH ROW WHEN ((NEW.status = 'queued' AND OLD.status IS DISTINCT FROM 'queued')
                       OR NEW.queue_order IS NULL
                       OR NEW.comparison_id IS DISTINCT FROM OLD.comparison_id)
    EXECUTE FUNCTION latencylab_run_queue_order();
"""

NOTIFY = """
DROP TRIGGER run_inserted_queued_notify ON comparisons_run;
DROP TRIGGER run_became_queued_notify ON comparisons_run;
CREATE TRIGGER run_inserted_queued_notify AFTER INSERT ON comparisons_run
    FOR EACH ROW WHEN (NEW.status = 'queued' AND NEW.queue_order IS NOT NULL)
    EXECUTE FUNCTION latencylab_notify_run_queued();
CREATE TRIGGER run_became_queued_notify AFTER UPDATE ON comparisons_run
    FOR EACH ROW WHEN (NEW.status = 'queued' AND NEW.queue_order IS NOT NULL
                       AND (OLD.status IS DISTINCT FROM 'queued' OR OLD.queue_order IS NULL))
    EXECUTE FUNCTION latencylab_notify_run_queued();
"""

NOTIFY_BEFORE = """
DROP TRIGGER run_inserted_queued_notify ON comparisons_run;
DROP TRIGGER run_became_queued_notify ON comparisons_run;
CREATE TRIGGER run_inserted_queued_notify AFTER INSERT ON comparisons_run
    FOR EACH ROW WHEN (NEW.status = 'queued') EXECUTE FUNCTION latencylab_notify_run_queued();
CREATE TRIGGER run_became_queued_notify AFTER UPDATE OF status ON comparisons_run
    FOR EACH ROW WHEN (NEW.status = 'queued' AND OLD.status IS DISTINCT FROM 'queued')
    EXECUTE FUNCTION latencylab_notify_run_queued();
"""

# The queued runs of organizations suspended now leave the queue (the trigger empties them);
# back, every queued run has its comparison's created_at again.
BACKFILL = """
UPDATE comparisons_run SET queue_order = NULL
    WHERE status = 'queued' AND comparison_id IN (
        SELECT comparison.id FROM comparisons_comparison AS comparison
            JOIN accounts_organization AS organization ON organization.id = comparison.organization_id
            WHERE organization.suspended_at IS NOT NULL);
"""

BACKFILL_BEFORE = """
UPDATE comparisons_run AS run SET queue_order = comparison.created_at
    FROM comparisons_comparison AS comparison
    WHERE comparison.id = run.comparison_id AND run.queue_order IS NULL;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_organization_suspension'),
        ('comparisons', '0008_run_queue_order'),
    ]

    operations = [
        migrations.RunSQL(QUEUE_ORDER, QUEUE_ORDER_BEFORE),
        migrations.RunSQL(NOTIFY, NOTIFY_BEFORE),
        migrations.RunSQL(BACKFILL, BACKFILL_BEFORE),
        migrations.AlterField(
            model_name='run',
            name='queue_order',
            field=models.DateTimeField(blank=True, editable=False, null=True,
                                       help_text="the comparison's created_at, copied by the database when queued; "
                                                 "empty while the organization is suspended"),
        ),
        migrations.RemoveIndex(
            model_name='run',
            name='run_queue_order_idx',
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(condition=models.Q(('platforms__contains', ['ios']), ('queue_order__isnull', False),
                                                  ('status', 'queued')),
                               fields=['pool', 'queue_order', 'slot', 'network_profile'], name='run_queue_ios_idx'),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(condition=models.Q(('platforms__contains', ['android']), ('queue_order__isnull', False),
                                                  ('status', 'queued')),
                               fields=['pool', 'queue_order', 'slot', 'network_profile'], name='run_queue_android_idx'),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(condition=models.Q(('platforms__contains', ['host']), ('queue_order__isnull', False),
                                                  ('status', 'queued')),
                               fields=['pool', 'queue_order', 'slot', 'network_profile'], name='run_queue_host_idx'),
        ),
    ]
