"""PostgreSQL wakes waiting runners when a run becomes queued (apps.comparisons.wakeups)."""

from django.db import migrations

NOTIFY = """
CREATE OR REPLACE FUNCTION latencylab_notify_run_queued() RETURNS trigger AS $$
BEGIN
    -- Delivered at commit, once per pool per transaction (identical notifications fold).
    PERFORM pg_notify('latencylab_runs_queued', NEW.pool_id::text);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER run_inserted_queued_notify AFTER INSERT ON comparisons_run
    FOR EACH ROW WHEN (NEW.status = 'queued') EXECUTE FUNCTION latencylab_notify_run_queued();
CREATE TRIGGER run_became_queued_notify AFTER UPDATE OF status ON comparisons_run
    FOR EACH ROW WHEN (NEW.status = 'queued' AND OLD.status IS DISTINCT FROM 'queued')
    EXECUTE FUNCTION latencylab_notify_run_queued();
"""

DROP = """
DROP TRIGGER IF EXISTS run_became_queued_notify ON comparisons_run;
DROP TRIGGER IF EXISTS run_inserted_queued_notify ON comparisons_run;
DROP FUNCTION IF EXISTS latencylab_notify_run_queued();
"""


class Migration(migrations.Migration):
    dependencies = [("comparisons", "0004_usage_quota")]
    operations = [migrations.RunSQL(NOTIFY, DROP)]
