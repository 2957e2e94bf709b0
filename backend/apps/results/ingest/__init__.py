"""Samples in: what a runner uploads (device-runner/contract/README.md) and what an import
brings, checked and stored. One job per module:

- `decode`: an upload body decoded and checked against the wire contract (msgspec in C;
  per-sample Python checks naming `samples[i].field` when that fails), and what needs
  the run (arm labels, the batch's block);
- `columnar`: the columnar upload body (latencylab_contract.columnar), read with numpy and
  checked against the contract a whole column at a time;
- `copy_codec`: PostgreSQL's binary COPY format, built column by column with numpy;
- `store`: the samples into results_sample through that COPY, durations derived
  (apps.results.storage.derive), and each block's analysis columns
  (apps.results.storage.block_columns);
- `blocks`: one uploaded block stored under the run's lease, wholly or not at all;
- `block_repeat`: a block that collides with one already stored (a retry, or a 409);
- `imports`: measurements made elsewhere (CSV or JSON lines) brought in as a comparison.

May import: storage, the app's models and events, and the lower apps (comparisons, devices,
core). Never the analysis, the verdicts or the readers: storing a block costs no statistics
(an import contract in backend/pyproject.toml holds this).
"""

from .columnar import ColumnarBatchParser, ColumnarSamples, columnar_validate
from .decode import SampleBatchParser, SampleIn, batch_decode, sample_errors, samples_validate
from .store import COLUMNS, samples_insert

__all__ = ["COLUMNS", "ColumnarBatchParser", "ColumnarSamples", "SampleBatchParser", "SampleIn", "batch_decode",
           "columnar_validate", "sample_errors", "samples_insert", "samples_validate"]
