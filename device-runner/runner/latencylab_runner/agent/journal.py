"""The upload journal: every batch the runner sends, kept on the runner host as it was sent.

Off unless `LATENCYLAB_RUNNER_JOURNAL` (or `--journal`) names a directory. With it, an
operator can check what a runner measured against what the backend stored (the fault tests
do exactly that), and a block the backend never acknowledged is still on disk. Each batch is
one JSON file, `<run_id>/a<attempt>-b<batch_seq>.json`, written before the first try, without
the lease token (a credential)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

JOURNAL_ENV = "LATENCYLAB_RUNNER_JOURNAL"


def journal_dir_from_env() -> Path | None:
    configured = os.environ.get(JOURNAL_ENV)
    return Path(configured).expanduser() if configured else None


class UploadJournal:
    def __init__(self, directory: Path):
        self.directory = directory

    def record(self, run_id: str, batch: dict[str, Any]) -> Path:
        entry = {key: value for key, value in batch.items() if key != "lease_token"}
        run_dir = self.directory / run_id
        run_dir.mkdir(parents=True, exist_ok=True)
        path = run_dir / f"a{batch.get('attempt')}-b{batch.get('batch_seq')}.json"
        # Written whole or not at all: a reader never sees half a batch.
        partial = path.with_suffix(".json.partial")
        partial.write_text(json.dumps(entry))
        os.replace(partial, path)
        return path


def read_journal(directory: Path) -> list[dict[str, Any]]:
    """Every batch recorded under `directory`, each with the `run_id` it was sent for."""
    return [{**json.loads(path.read_text()), "run_id": path.parent.name}
            for path in sorted(directory.glob("*/a*-b*.json"))]
