"""Ingesting uploaded samples (device-runner/contract/README.md), one job per module:

- `decode`: an upload body decoded and checked against the wire contract (msgspec in C;
  per-sample Python checks naming `samples[i].field` when that fails), and what needs
  the run (arm labels, the batch's block);
- `copy_codec`: PostgreSQL's binary COPY format, built column by column with numpy;
- `store`: the samples into results_sample through that COPY, durations derived
  (apps.results.derive), and each block's analysis columns (apps.results.block_columns).
"""

from .decode import SampleBatchParser, SampleIn, batch_decode, sample_errors, samples_validate
from .store import COLUMNS, samples_insert

__all__ = ["COLUMNS", "SampleBatchParser", "SampleIn", "batch_decode", "sample_errors", "samples_insert",
           "samples_validate"]
