"""What the dashboard, the CLI, the reports and the exports read of a comparison's results,
shaped for them.

- `results_json`: the results document as JSON bytes, the stored analysis spliced in as text;
  `gzip_splice`: its gzip, the large part compressed once and kept;
- `charts`, `phases`: the sections of that document the analysis computes once and stores
  (per-group chart series; the phase breakdown);
- `export`: raw samples streamed as CSV or JSON lines;
- `trends`: one metric across the comparisons of a branch;
- `home`: the dashboard's home (latest comparisons with their headline verdict, the farm);
- `aa`: the A/A trust check, the gate's empirical false-positive rate per pool.

May import: the verdicts (a headline, the pooled scope), selectors, storage, the statistics
engine, the app's models and the lower apps. Nothing below imports it but the app's services,
views and tasks.
"""
