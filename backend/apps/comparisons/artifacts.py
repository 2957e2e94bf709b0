"""Run artifacts: files a runner keeps with a run (the fastlane log, the raw result
document), bounded so they fit in PostgreSQL beside the run."""

import re

from django.db import transaction
from django.db.models import QuerySet

from apps.core.errors import ApplicationError, Conflict, PayloadTooLarge
from apps.devices.models import Runner

from .leases import run_lock_for_artifact
from .models import RunArtifact

ARTIFACT_MAX_BYTES = 2 * 1024 * 1024  # the runner keeps the tail of a longer log
ARTIFACTS_PER_RUN = 64
ARTIFACT_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")
CONTENT_TYPE = re.compile(r"[A-Za-z0-9!#$&^_.+-]{1,50}/[A-Za-z0-9!#$&^_.+-]{1,50}")
# Served with their own type; anything else is served as application/octet-stream, so an
# artifact can never be rendered as a page of this origin.
SAFE_CONTENT_TYPES = ("text/plain", "application/json", "application/octet-stream", "application/gzip",
                      "application/zip", "application/x-ndjson")


def artifact_name_error(name: str | None) -> str | None:
    if not name or not ARTIFACT_NAME.fullmatch(name) or name in (".", ".."):
        return "X-Artifact-Name: 1 to 100 of A-Z a-z 0-9 . _ -"
    return None


def content_type_of(header: str | None) -> str:
    """The media type without parameters; application/octet-stream when absent."""
    media_type = (header or "").split(";", 1)[0].strip().lower()
    if not media_type:
        return "application/octet-stream"
    if not CONTENT_TYPE.fullmatch(media_type):
        raise ApplicationError("Content-Type: a media type such as text/plain",
                               extra={"Content-Type": ["a media type such as text/plain"]})
    return media_type


@transaction.atomic
def run_artifact_store(*, runner: Runner, run_id: str, lease_token: str, name: str, content_type: str,
                       data: bytes) -> RunArtifact:
    """Store one artifact under the run's current or just-ended lease. The same name in
    the same attempt replaces the earlier upload (a retried request stores it once)."""
    if error := artifact_name_error(name):
        raise ApplicationError(error, extra={"X-Artifact-Name": [error.split(": ", 1)[1]]})
    if len(data) > ARTIFACT_MAX_BYTES:
        raise PayloadTooLarge(f"artifact: at most {ARTIFACT_MAX_BYTES} bytes; keep the tail of a longer log")
    run = run_lock_for_artifact(runner=runner, run_id=run_id, lease_token=lease_token)
    existing = RunArtifact.objects.filter(run=run, attempt=run.attempt, name=name).first()
    if existing is None and RunArtifact.objects.filter(run=run).count() >= ARTIFACTS_PER_RUN:
        raise Conflict(f"This run already has {ARTIFACTS_PER_RUN} artifacts, the most it may keep.")
    artifact = existing or RunArtifact(run=run, attempt=run.attempt, name=name)
    artifact.device = run.last_device
    artifact.content_type = content_type
    artifact.size = len(data)
    artifact.data = data
    artifact.save()
    return artifact


def run_artifacts_listing() -> QuerySet[RunArtifact]:
    """Artifacts without their bytes, with the device their attempt ran on."""
    return RunArtifact.objects.defer("data").select_related("device").order_by("attempt", "name")


def served_content_type(artifact: RunArtifact) -> str:
    return artifact.content_type if artifact.content_type in SAFE_CONTENT_TYPES else "application/octet-stream"
