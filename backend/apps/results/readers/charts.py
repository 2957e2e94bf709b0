"""Reshapes the engine's analysis into the per-group payload the dashboard draws
(docs/api.md, "Results"): one group per device × network profile, with per-period series aggregates
per arm and per-arm request statistics. Numbers only: the browser never sees raw samples."""

from typing import Any


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def chart_groups(analysis: dict[str, Any], *, arms: list[str], groups: list[tuple[str, str]]) -> list[dict[str, Any]]:
    out = []
    for device, profile in groups:
        series = [r for r in analysis["series"] if r["device"] == device and r["profile"] == profile]
        periods = sorted({r["period"] for r in series})
        by_key = {(r["arm"], r["period"]): r for r in series}
        arm_payload = {}
        for arm in arms:
            rows = [by_key.get((arm, p)) for p in periods]
            arm_payload[arm] = {
                "avg_ms": [_round(r["average_ms"]) if r else None for r in rows],
                "median_ms": [_round(r["median_ms"]) if r else None for r in rows],
                "throughput_bps": [_round(r["throughput_bytes_per_s"], 1) if r else None for r in rows],
                "gain_pct": [_round(r.get("gain_pct"), 2) if r and r["arm"] != analysis["baseline_arm"] else None
                             for r in rows],
                "n": [r["series"] if r else 0 for r in rows],
                "series_ms": [[_round(t) for t in r["times_ms"]] if r else [] for r in rows],
            }
        requests = {}
        for arm in arms:
            row = next((r for r in analysis["requests"] if r["arm"] == arm and r["device"] == device
                        and r["profile"] == profile), None)
            requests[arm] = {
                "n": row["n"] if row else 0,
                "errors": row["errors"] if row else 0,
                "median_ms": _round(row.get("median_ms")) if row else None,
                "p90_ms": _round(row.get("p90_ms")) if row else None,
                "p95_ms": _round(row.get("p95_ms")) if row else None,
            }
        out.append({"device": device, "network_profile": profile, "periods": periods, "arms": arm_payload,
                    "requests": requests, "concurrency": analysis.get("concurrency", "sequential")})
        if analysis.get("per_request"):
            out[-1]["per_request"] = _per_request(analysis["per_request"], arms=arms, device=device, profile=profile)
    return out


def _per_request(rows: list[dict[str, Any]], *, arms: list[str], device: str, profile: str) -> dict[str, Any]:
    """A request list's requests in list order, and per arm one value per request."""
    mine = [r for r in rows if r["device"] == device and r["profile"] == profile]
    names = dict(sorted({r["step"]: r["name"] for r in mine}.items()))
    by_key = {(r["arm"], r["step"]): r for r in mine}
    payload: dict[str, Any] = {}
    for arm in arms:
        cells = [by_key.get((arm, step)) for step in names]
        payload[arm] = {
            "median_ms": [_round(c.get("median_ms")) if c else None for c in cells],
            "p90_ms": [_round(c.get("p90_ms")) if c else None for c in cells],
            "n": [c["n"] if c else 0 for c in cells],
            "errors": [c["errors"] if c else 0 for c in cells],
        }
    return {"names": list(names.values()), "arms": payload}
