"""The public report of a share link: what /r/<token> shows, the offline HTML embeds and the
PDF prints. Built only from what is stored for the comparison (its latest Analysis, the
arms, the runs' fingerprints and measured links, the block counts): never from the samples.
The spec is shown without anything a customer may keep private (header values, bodies,
credentials or query strings in URLs); `{{secret.NAME}}` references are named, never resolved."""

import datetime as dt
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

from apps.comparisons.models import Comparison
from apps.comparisons.secret_refs import REFERENCE
from apps.core.errors import ApplicationError
from apps.devices.stand_in import stand_in_of_run
from apps.results.selectors import results_for_charts
from apps.results.verdicts.ci_verdict import verdict_for

REDACTED = "[redacted]"
FORMAT_VERSION = 2  # 2: the verdict names its metric and carries the metric beside it


def report_cache_version(comparison: Comparison) -> str:
    """Changes whenever the document would: a new analysis, or the comparison itself changing."""
    version = comparison.analyses.order_by("-version").values_list("version", flat=True).first()
    return f"{version or 0}:{comparison.updated_at.timestamp():.6f}:{FORMAT_VERSION}"


def redact_url(url: str) -> str:
    """Scheme, host, port and path: credentials and the query string may be secrets."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.hostname or ""
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    query = REDACTED if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _header_value(value: Any) -> str:
    """A header value as the report shows it: only the names of the secrets it references."""
    names = REFERENCE.findall(value) if isinstance(value, str) else []
    return " ".join(f"{{{{secret.{name}}}}}" for name in names) + (" " if names else "") + REDACTED


def public_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The normalized spec without header values, bodies, URL credentials or query strings."""
    public: dict[str, Any] = {key: value for key, value in spec.items() if key != "arms" and key != "workload"}
    public["arms"] = [{**arm, "endpoint": redact_url(arm.get("endpoint") or "")} if isinstance(arm, dict) else arm
                      for arm in spec.get("arms") or []]
    workload = dict(spec.get("workload") or {})
    if isinstance(workload.get("requests"), list):
        requests = []
        for request in workload["requests"]:
            if not isinstance(request, dict):
                continue
            shown = {key: value for key, value in request.items() if key not in ("body", "body_b64", "headers")}
            if isinstance(request.get("url"), str):
                shown["url"] = redact_url(request["url"])
            if isinstance(request.get("path"), str) and "?" in request["path"]:
                shown["path"] = request["path"].split("?", 1)[0] + "?" + REDACTED
            if request.get("headers"):
                shown["headers"] = {name: _header_value(value) for name, value in request["headers"].items()}
            if request.get("body") is not None or request.get("body_b64") is not None:
                shown["body"] = REDACTED
            requests.append(shown)
        workload["requests"] = requests
    public["workload"] = workload
    return public


def _runs(comparison: Comparison) -> list[dict[str, Any]]:
    runs = (comparison.runs.select_related("device").annotate(sample_total=Sum("blocks__sample_count"))
            .order_by("slot", "network_profile"))
    out = []
    for run in runs:
        fingerprint = run.fingerprint if isinstance(run.fingerprint, dict) else {}
        device = (fingerprint.get("model") or (run.device.model if run.device else "") or run.device_label
                  or f"slot-{run.slot}")
        out.append({
            "device": device, "platforms": run.platforms, "status": run.status,
            "network_profile": run.network_profile, "network_profile_applied": run.network_profile_spec,
            "network_measured": run.link, "fingerprint": fingerprint,
            "stand_in": stand_in_of_run(run),
            "blocks": run.blocks_total, "samples": int(getattr(run, "sample_total", 0) or 0),
        })
    return out


def verdict_line(verdict: dict[str, Any] | None, comparison: Comparison) -> str:
    """One line for previews (og:description, the card): the outcome and the deciding row."""
    if verdict is None:
        return f"Comparison {comparison.status}: no verdict yet."
    outcome = str(verdict.get("outcome", "")).replace("_", " ")
    rows = [row for row in verdict.get("verdicts") or [] if row.get("scope", "pooled") == "pooled"]
    deciding = next((row for row in rows if row.get("outcome") == verdict.get("outcome")), None)
    if deciding and deciding.get("summary"):
        return f"{outcome.capitalize()}: {deciding['summary']}"
    return outcome.capitalize() or "No verdict"


def _verdict(comparison: Comparison) -> dict[str, Any] | None:
    if comparison.status != Comparison.Status.FINISHED:
        return None
    try:
        return verdict_for(comparison, baseline_ref=None, base_url=settings.PUBLIC_URL.rstrip("/"))
    except ApplicationError:
        return None


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value else None


def report_document(*, comparison: Comparison) -> dict[str, Any]:
    results = results_for_charts(comparison=comparison)
    verdict = _verdict(comparison)
    runs = _runs(comparison)
    return {
        "name": comparison.name,
        "tags": comparison.tags,
        "status": comparison.status,
        "preset": comparison.preset,
        "created_at": _iso(comparison.created_at),
        "started_at": _iso(comparison.started_at),
        "finished_at": _iso(comparison.finished_at),
        "generated_at": timezone.now().isoformat(),
        "verdict_line": verdict_line(verdict, comparison),
        "results": results,
        "verdict": verdict,
        "method": {
            "spec": public_spec(comparison.spec),
            "baseline_arm": comparison.baseline_arm,
            "arms": [{"label": arm.label, "protocol": arm.protocol, "connection": arm.connection,
                      "endpoint": redact_url(arm.endpoint)} for arm in comparison.arms.all()],
            "runs": runs,
            "sample_count": sum(run["samples"] for run in runs),
        },
    }


_SAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")


def report_filename(comparison: Comparison, ext: str) -> str:
    stem = _SAFE_FILENAME.sub("-", comparison.name).strip("-")[:60] or "report"
    return f"latencylab-{stem}.{ext}"
