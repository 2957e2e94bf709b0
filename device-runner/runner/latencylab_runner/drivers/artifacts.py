"""A run's artifacts (the fastlane log and the raw result of each block), uploaded as
evidence next to the samples: bounded to the backend's 2 MiB per artifact (a log keeps
its tail) and to 64 per run, the last two slots kept for a failing block's evidence.
An artifact that cannot be stored never costs the run its samples."""

from __future__ import annotations

import logging
import threading

from ..agent.client import LeaseLost, ProtocolError, RunnerClient
from .fastlane import ARTIFACT_LIMIT, bounded

log = logging.getLogger(__name__)

MAX_PER_RUN = 64


class RunArtifacts:
    def __init__(self, client: RunnerClient, *, run_id: str, lease_token: str, attempt: int):
        self.client = client
        self.run_id = run_id
        self.lease_token = lease_token
        self.attempt = attempt
        self.uploaded: list[str] = []
        self._lock = threading.Lock()

    def block_evidence(self, block: int, *, lane_log: bytes | None, raw_result: bytes | None, failed: bool) -> None:
        items = []
        if lane_log is not None:
            items.append((f"a{self.attempt}-block-{block}-fastlane.log", bounded(lane_log), "text/plain"))
        if raw_result is not None:
            name = f"a{self.attempt}-block-{block}-result.json"
            if len(raw_result) > ARTIFACT_LIMIT:
                # Either end of a cut JSON document is unreadable; keep its start, say so in the name.
                name, raw_result = name + ".truncated", raw_result[:ARTIFACT_LIMIT]
            items.append((name, raw_result, "application/json"))
        with self._lock:
            room = MAX_PER_RUN - len(self.uploaded) - (0 if failed else 2)
        for name, data, content_type in items[:max(room, 0)]:
            self.upload(name, data, content_type)

    def upload(self, name: str, data: bytes, content_type: str) -> None:
        try:
            self.client.upload_artifact(self.run_id, lease_token=self.lease_token, name=name, data=data,
                                        content_type=content_type)
        except LeaseLost:
            raise
        except (ProtocolError, OSError) as exc:
            log.warning("run %s: artifact %s not stored: %s", self.run_id, name, exc)
            return
        with self._lock:
            self.uploaded.append(name)
