"""Development aid: regenerates the results fixtures (src/testing/fixtures/results-*.json)
and the matching verdicts (verdict-*.json) from the backend's statistics engine on
synthetic samples, so the dashboard's tests and screenshots see exactly the shapes the
API sends (groups + analysis; the CI gate's document, built by apps.results.verdicts.gate as the
verdict endpoint builds it), and the network profiles of an organization with its own.
The `-v1` pair is a comparison analysed by the engine's format version 1 (per-request
metrics only), as stored then (backend/apps/results/tests/data/), with the verdict today's
server gives it.

    cd frontend && ../.venv/bin/python scripts/gen-results-fixtures.py
"""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np

FRONTEND = Path(__file__).resolve().parent.parent
STORED_V1 = FRONTEND.parent / "backend/apps/results/tests/data/analysis-v1-mid-image-series.json"

from apps.results.analysis import (
    BlockBaselines, SampleTable, VerdictConfig, analyze_comparison, describe, synthetic_table, to_jsonable)
from apps.results.readers.charts import chart_groups
from apps.network.presets import BUILT_IN, built_in_payload
from apps.results.verdicts.gate import (
    VERDICT_SCOPES, beside_metric, metric_label, no_data_within, verdict_document, verdict_row)
from apps.results.stacks import ArmFacts, RunFacts, arm_stacks

OUT = FRONTEND / "src" / "testing" / "fixtures"


PHASES = ("dns_ms", "connect_ms", "tls_ms", "ttfb_ms", "download_ms")


def phases(table, *, quic_arms=(), plain_arms=()):
    """What apps/results/readers/phases.py computes in SQL, from durations made up per request: a
    request that opens a connection pays DNS (on the block's first request only, the cache
    is cold once per block), TCP connect and TLS (QUIC arms: one handshake, reported as
    connect, no TLS; plain-HTTP arms: no TLS), carved out of the time before the first byte
    went out; every request has TTFB (the table's) and a download (the rest, less ~3 %)."""
    keep = table.phase_measure & table.ok
    total, ttfb = table.total_us / 1000.0, table.ttfb_us / 1000.0
    new = table.first_on_connection
    arm_label = np.array(table.arm_labels)[table.arm]
    quic, plain = np.isin(arm_label, list(quic_arms)), np.isin(arm_label, list(plain_arms))
    dns = np.where(new & (table.step == 0), 0.03 * total, np.nan)
    connect = np.where(new, np.where(quic, 0.16, 0.1) * total, np.nan)
    tls = np.where(new & ~quic & ~plain, 0.12 * total, np.nan)
    handshake = np.nansum(np.stack([dns, connect, tls]), axis=0)
    download = np.maximum(total - ttfb - handshake, 0.0) * 0.97
    columns = {"dns_ms": dns, "connect_ms": connect, "tls_ms": tls, "ttfb_ms": ttfb, "download_ms": download}
    out = []
    for p, profile in enumerate(table.profile_labels):
        for d, device in enumerate(table.device_labels):
            for a, arm in enumerate(table.arm_labels):
                rows = keep & (table.profile == p) & (table.device == d) & (table.arm == a)
                if not rows.any():
                    continue
                entry = {"arm": arm, "device": device, "profile": profile, "n": int(rows.sum())}
                for phase in PHASES:
                    values = columns[phase][rows]
                    values = values[~np.isnan(values)]
                    entry[phase] = round(float(np.median(values)), 3) if len(values) else None
                    entry[f"{phase[:-3]}_n"] = int(len(values))
                out.append(entry)
    out.sort(key=lambda e: (e["device"], e["profile"], table.arm_labels.index(e["arm"])))
    return out


# Which client and server measured each arm (GET …/results `stacks`), as runs' fingerprints say.
PROBE, TARGET = "latencylab-probe 0.1.0", "latencylab-target 0.1.0"
LIBRARY = {"h1": "h11 0.16.0", "h2": "h2 4.2.0", "h3": "quic-go 0.65.0"}  # probe and target alike
PHONE_CLIENT = {"android": {"h1": "okhttp 5.1.0", "h2": "okhttp 5.1.0", "h3": "cronet 128.0.6613.40"},
                "ios": {"h1": "URLSession (iOS 17.4)", "h2": "URLSession (iOS 17.4)", "h3": "URLSession (iOS 17.4)"}}


def run_fingerprint(platform, arms, *, servers=None):
    """A run's fingerprint: the client stacks of `platform`, and each arm's server (the runner's
    reference target by default; the host probe reads Server headers on h1/h2, phones none)."""
    clients = ({p: f"{PROBE} ({LIBRARY[p]})" for _, p, _ in arms} if platform == "host"
               else {p: PHONE_CLIENT[platform][p] for _, p, _ in arms})
    read = platform == "host"
    return {"platform": platform, "client_stacks": clients, "server_stacks": {
        label: (servers or {}).get(label) or {
            "target": "reference", "software": f"{TARGET} ({LIBRARY[protocol]})",
            "server_headers": [] if read and protocol != "h3" else None}
        for label, protocol, _ in arms}}


def stacks(arms, runs):
    """arms: (label, protocol, endpoint); runs: (device model, fingerprint)."""
    return arm_stacks([ArmFacts(label=l, protocol=p, endpoint=e) for l, p, e in arms],
                      [RunFacts(fingerprint=f, device=d) for d, f in runs])


def body(comparison_id, table, baselines, baseline_arm, *, stacks, quic_arms=(), plain_arms=(),
         metrics=("total_ms", "ttfb_ms")):
    analysis = analyze_comparison(table, baseline_arm=baseline_arm, baselines=baselines, metrics=metrics,
                                  config=VerdictConfig())
    folded = dataclasses.replace(table, period=np.full(len(table), -1, dtype=np.int32))
    analysis["requests"] = to_jsonable(describe(folded, metric="total_ms"))
    analysis["phases"] = phases(table, quic_arms=quic_arms, plain_arms=plain_arms)
    arms = list(table.arm_labels)
    groups = list(dict.fromkeys(zip([table.device_labels[d] for d in table.device],
                                    [table.profile_labels[p] for p in table.profile])))
    return {"comparison": comparison_id, "status": "finished", "baseline_arm": baseline_arm, "arms": arms,
            "analysis_version": 1, "groups": chart_groups(analysis, arms=arms, groups=groups), "stacks": stacks,
            "analysis": round_floats(analysis), "samples_removed": None, "partial": False, "blocks_planned": None,
            "blocks_stored": None}


def verdict(results, *, name, metric="total_ms", workload=None):
    """GET /api/v1/comparisons/{id}/verdict of this finished comparison, gated on `metric`, with
    the other metric beside it as verdicts/ci_verdict.py puts it there."""
    config = results["analysis"]["config"]
    comparisons = results["analysis"]["comparisons"]

    def rows_of(m):
        return [verdict_row(c, baseline_comparison=None) for c in comparisons
                if c["metric"] == m and c.get("scope", "pooled") in VERDICT_SCOPES]

    other = beside_metric(metric, list(dict.fromkeys(c["metric"] for c in comparisons)))
    comparison = results["comparison"]
    return verdict_document(
        comparison=comparison, name=name, status="finished", url=f"http://testserver/comparisons/{comparison}",
        gate={"statistic": "median", "metric": metric, "metric_label": metric_label(metric, workload),
              "margin_pct": config["margin_pct"], "alpha": config["alpha"]},
        baseline={"kind": "arm", "comparison": None, "arm": results["baseline_arm"], "ref": None},
        verdicts=rows_of(metric), no_data_reason=no_data_within(baseline_arm=results["baseline_arm"], metric=metric),
        beside={"metric": other, "metric_label": metric_label(other, workload), "verdicts": rows_of(other)}
        if other else None)


def network_profiles():
    """GET /api/v1/network-profiles of an organization with one profile of its own."""
    own = {"down": {"delay_ms": 12, "jitter_ms": 4, "loss_pct": 0.5, "rate_kbit": 20000},
           "up": {"delay_ms": 12, "jitter_ms": 4, "loss_pct": 0.5, "rate_kbit": 5000}, "blackouts": []}
    return [built_in_payload(name) for name in BUILT_IN] + [
        {"name": "office-wifi", "built_in": False, "origin": "custom", "description": "the lab's Wi-Fi at 5 pm",
         "down_kbit": 20000, "up_kbit": 5000, "rtt_ms": 24, "loss_pct": 0.5, "spec": own}]


def round_floats(value):
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, dict):
        return {k: round_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [round_floats(v) for v in value]
    return value


def write(name, data):
    (OUT / name).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"src/testing/fixtures/{name}")


def mid_image_series():
    # seeds/000: 24 images, periods 3..30, two profiles; transatlantic first, then an unshaped link.
    sizes = np.array([94_512, 41_230, 88_004, 67_395, 72_211, 55_870, 61_042, 80_333, 39_118, 70_456, 66_930,
                      58_770, 91_204, 47_615, 75_321, 63_408, 52_119, 84_662, 69_870, 44_203, 78_555, 59_961,
                      73_820, 60_887])
    table, baselines = synthetic_table(
        arm_ratios={"https-h1": 1.0, "h2": 0.42, "h3": 0.36}, devices=1, device_class="host-lab-1",
        profiles=("transatlantic", "none"), blocks=12, periods=list(range(3, 31, 3)), repetitions=1,
        base_ms=255.0, request_sigma=0.06, device_sigma=0.0, block_sigma=0.03, first_request_factor=1.6,
        seed=7)
    # The synthetic engine makes profile 1 twice as slow; the unshaped link is ~25× faster instead.
    total = np.where(table.profile == 1, table.total_us // 50, table.total_us)
    total = np.maximum(total, 1)
    table = dataclasses.replace(
        table, device_labels=("host-lab-1",), total_us=total, ttfb_us=(total * 6) // 10,
        resp_bytes=sizes[(table.step + table.period) % len(sizes)].astype(np.int64))
    baselines = dataclasses.replace(baselines, rtt_avg_us=np.where(baselines.profile == 0, 80_000.0, 1_500.0))
    arms = [("https-h1", "h1", ""), ("h2", "h2", ""), ("h3", "h3", "")]
    return body("7d4f9a52-3c1e-4b8a-9d2f-5e6a7b8c9d01", table, baselines, "https-h1", quic_arms=("h3",),
                stacks=stacks(arms, [("Linux x86_64", run_fingerprint("host", arms))] * 2),  # a run per profile
                metrics=("total_ms", "ttfb_ms", "series_ms"))


MID_PERIODS = list(range(3, 31, 3))


def mid_image_series_parallel():
    """The preset as it ships, parallel 4, and the reason the gate judges series time: h1 spreads
    each series over 4 connections (a connection takes the next request when its previous one
    completes: ⌈period ÷ 4⌉ waves of ~4.5 ms), h2 issues it at once on one connection, each
    request waiting behind its siblings (~10.4 ms each, slower) while the series ends sooner."""
    rng = np.random.default_rng(11)
    cols = {k: [] for k in ("arm", "block", "period", "repetition", "step", "total_us", "ttfb_us", "start_us",
                            "resp_bytes")}
    clock = 1_700_000_000_000_000
    for block in range(8):
        for period in MID_PERIODS:
            for rep in range(2):
                for arm, request_ms, lanes in ((0, 4.5, 4), (1, 10.4, period)):
                    free_at = [clock] * lanes
                    for step in range(period):
                        slot = int(np.argmin(free_at))
                        took = int(request_ms * 1000 * math.exp(rng.normal(0, 0.08)))
                        for key, value in (("arm", arm), ("block", block), ("period", period), ("repetition", rep),
                                           ("step", step), ("total_us", took), ("ttfb_us", took * 6 // 10),
                                           ("start_us", free_at[slot]), ("resp_bytes", 67_000)):
                            cols[key].append(value)
                        free_at[slot] += took
                    clock = max(free_at) + 2_000
    n = len(cols["arm"])
    table = SampleTable.from_columns(**cols, device=[0] * n, profile=[0] * n, arm_labels=("https-h1", "h2"),
                                     device_labels=("host-lab-1",), profile_labels=("none",), concurrency="parallel 4")
    arms = [("https-h1", "h1", ""), ("h2", "h2", "")]
    return body("7d4f9a52-3c1e-4b8a-9d2f-5e6a7b8c9d04", table, None, "https-h1",
                stacks=stacks(arms, [("Linux x86_64", run_fingerprint("host", arms))]),
                metrics=("total_ms", "ttfb_ms", "series_ms"))


def stored_v1():
    """The MID series as the engine's format version 1 stored it, read as the results endpoint
    serves it today (the analysis unchanged)."""
    stored = json.loads(STORED_V1.read_text())
    arms = [("https-h1", "h1", ""), ("h2", "h2", ""), ("h3", "h3", "")]
    return {"comparison": "7d4f9a52-3c1e-4b8a-9d2f-5e6a7b8c9d03", "status": "finished",
            "baseline_arm": stored["baseline_arm"], "arms": stored["arms"], "analysis_version": 1,
            "groups": stored["groups"], "stacks": stacks(arms, [("Linux x86_64", run_fingerprint("host", arms))] * 2),
            "analysis": stored["analysis"], "samples_removed": None, "partial": False, "blocks_planned": None,
            "blocks_stored": None}


def os_added_latency():
    # seeds/002: server delay 0..1000 ms in 25 ms steps, 10 trials; Android adds a 200 ms step.
    delays = np.arange(0, 1001, 25)
    table, baselines = synthetic_table(
        arm_ratios={"h1": 1.0, "h2": 0.9}, devices=2, profiles=("none",), blocks=10,
        requests_per_block=len(delays), base_ms=12.0, request_sigma=0.15, device_sigma=0.0, seed=2)
    table = dataclasses.replace(table, device_labels=("pixel-8-android-14", "iphone-15-ios-17.4"),
                                device_classes=("Pixel 8 · Android 14", "iPhone 15 · iOS 17.4"))
    delay_ms = delays[table.step]
    sawtooth = np.where(table.device == 0, (delay_ms % 40) * 0.5, (delay_ms % 100) * 0.15)
    android_step = np.where((table.device == 0) & (delay_ms >= 200), 200.0, 0.0)
    added_us = table.total_us + ((sawtooth + android_step) * 1000).astype(np.int64)
    total = delay_ms.astype(np.int64) * 1000 + added_us
    table = dataclasses.replace(table, server_delay_us=delay_ms.astype(np.int64) * 1000, total_us=total,
                                ttfb_us=total - 300, resp_bytes=np.full(len(table), 64, dtype=np.int64),
                                first_on_connection=np.zeros(len(table), dtype=bool))
    arms = [("h1", "h1", ""), ("h2", "h2", "")]
    return body("b1c2d3e4-0002-4000-8000-000000000002", table, baselines, "h1",
                stacks=stacks(arms, [("Pixel 8", run_fingerprint("android", arms)),
                                     ("iPhone 15", run_fingerprint("ios", arms))]))


def payload_sweep():
    # seeds/004: 800-byte request, log-spaced responses 1 KB..2 MB with 35,000 B and 200–400 KB;
    # build 2.2 hits delayed ACK on the 35 KB and 200–400 KB bands, 2.2.1 fixes it.
    sizes = np.array(sorted({*np.geomspace(1_000, 2_000_000, 12).round(-2).astype(int), 35_000, 200_000,
                              300_000, 400_000}))
    reps = 4
    table, _ = synthetic_table(
        arm_ratios={"build-2.2": 1.0, "build-2.2.1": 1.0}, devices=3, device_class="Pixel 8", profiles=("lte",),
        blocks=8, requests_per_block=len(sizes) * reps, base_ms=1.0, request_sigma=0.08, device_sigma=0.05,
        block_sigma=0.03, seed=4)
    size = sizes[table.step % len(sizes)]
    rtt_ms = 50.0
    transfer_ms = size / 125_000_000 * 1000  # 1 Gbit/s: only the delayed-ACK bands exceed 2× RTT
    base_ms = rtt_ms * 1.1 + transfer_ms
    buggy = (table.arm == 0) & (np.isin(size, [35_000]) | ((size >= 200_000) & (size <= 400_000)))
    latency_ms = base_ms * (table.total_us / 1000.0) + np.where(buggy, 200.0, 0.0)
    total = (latency_ms * 1000).astype(np.int64)
    table = dataclasses.replace(table, resp_bytes=size.astype(np.int64), total_us=total, ttfb_us=total // 2,
                                device_labels=("pixel-8-a", "pixel-8-b", "pixel-8-c"))
    n_blocks = 3 * 8
    b = np.arange(n_blocks)
    baselines = BlockBaselines(device=b // 8, profile=np.zeros(n_blocks, dtype=np.int64), block=b % 8,
                               rtt_avg_us=np.full(n_blocks, rtt_ms * 1000), rtt_stddev_us=np.full(n_blocks, 800.0),
                               loss_pct=np.zeros(n_blocks))
    # The customer's two builds behind their own endpoints; the phones read no Server header.
    arms = [("build-2.2", "h2", "https://staging-2-2.example.com"), ("build-2.2.1", "h2", "https://staging.example.com")]
    customer = {"target": "customer", "software": None, "server_headers": None}
    fingerprint = run_fingerprint("android", arms, servers={"build-2.2": customer, "build-2.2.1": customer})
    return body("b1c2d3e4-0004-4000-8000-000000000004", table, baselines, "build-2.2",
                stacks=stacks(arms, [("Pixel 8", fingerprint)] * 3))


def api_and_download():
    # seeds/003 test A: 5 rounds × 5 sequential API calls; the first call of a round pays the handshake.
    table, baselines = synthetic_table(
        arm_ratios={"h1": 1.0, "h2": 0.97, "h3": 0.8}, devices=1, device_class="Pixel 8", profiles=("lte",),
        blocks=5, requests_per_block=5, base_ms=70.0, request_sigma=0.12, device_sigma=0.0,
        first_request_factor=2.6, resp_bytes=512, seed=3)
    table = dataclasses.replace(table, device_labels=("pixel-8-a",))
    arms = [("h1", "h1", ""), ("h2", "h2", ""), ("h3", "h3", "")]
    return body("b1c2d3e4-0003-4000-8000-000000000003", table, baselines, "h1", quic_arms=("h3",),
                stacks=stacks(arms, [("Pixel 8", run_fingerprint("android", arms))]))


if __name__ == "__main__":
    series = {"periods": MID_PERIODS}
    for preset, results, title, metric, workload in (
        ("mid-image-series", mid_image_series(), "MID image series: HTTPS/1.1 vs HTTP/2 vs HTTP/3", "series_ms",
         series),
        ("mid-image-series-parallel", mid_image_series_parallel(), "MID image series, parallel 4: HTTPS/1.1 vs HTTP/2",
         "series_ms", series),
        ("mid-image-series-v1", stored_v1(), "MID image series, analysed before series time gated", "total_ms",
         series),
        ("os-added-latency", os_added_latency(), "OS-added latency: delay sweep", "total_ms", None),
        ("payload-sweep", payload_sweep(), "Payload sweep: build 2.2 vs 2.2.1", "total_ms", None),
        ("api-and-download", api_and_download(), "API and download: HTTPS/1.1 vs HTTP/2 vs HTTP/3", "total_ms", None),
    ):
        write(f"results-{preset}.json", results)
        write(f"verdict-{preset}.json", verdict(results, name=title, metric=metric, workload=workload))
        if preset == "mid-image-series":
            write(f"verdict-{preset}-ttfb.json", verdict(results, name=title, metric="ttfb_ms", workload=workload))
    write("network-profiles.json", network_profiles())
