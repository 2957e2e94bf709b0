"""The scheduler: which device runs which run, when, and under which lease.

- `leasing`: the scheduler's side of the runner protocol (device reports, leases granted
  by long poll, heartbeats that extend them, an attempt finished with its classification,
  the reaper that requeues runs whose lease expired);
- `wakeups`: one PostgreSQL listener per process wakes the lease requests waiting for work;
- `reconcile`: the work of a lost planning or completion task, redone from PostgreSQL;
- `tasks`: the periodic tasks (reaper, reconciler).

It has no models: it drives the comparisons app's runs (apps.comparisons.models) and the
devices app's devices. It may import core, accounts, devices and comparisons; only the
runner protocol (its HTTP face) imports it. Nothing below it in the apps' order knows it
exists: what every writer under a lease checks is the run's own (apps.comparisons.leases).
The import contracts in backend/pyproject.toml hold this."""
