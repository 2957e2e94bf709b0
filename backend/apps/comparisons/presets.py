"""The four seed experiments as presets (docs/api.md, "Presets"), plus the A/A trust check. A preset
is a partial spec; the user's fields override it key by key (workload as a whole object
merge)."""

from typing import Any

# seeds/004: response sizes log-spaced 1 KB … 2 MB, plus the sizes where the seed saw
# the Nagle/delayed-ACK stall (35,000 B and the 200–400 KB band).
PAYLOAD_SWEEP_SIZES = sorted(
    {1000, 2000, 4000, 8000, 16000, 32000, 35000, 64000, 128000, 200000, 256000, 300000, 400000, 512000,
     1024000, 2048000}
)

# seeds/000: an iOS app fetching the 24 MID images with NSURLSession, which issues them
# concurrently, up to 4 HTTP/1.1 connections per host on iOS (HTTP/2: one, multiplexed).
MID_IMAGE_SERIES: dict[str, Any] = {
    "name": "MID image series: HTTPS/1.1 vs HTTP/2",
    "workload": {
        "kind": "series",
        "objects": "seed-mid-24",
        "periods": [3, 6, 9, 12, 15, 18, 21, 24, 27, 30],
        "repetitions": 12,
        "warmup": 1,
        "concurrency": {"parallel": 4},
    },
    "arms": [
        {"label": "https-h1", "protocol": "h1", "connection": "warm"},
        {"label": "h2", "protocol": "h2", "connection": "warm"},
    ],
    "baseline_arm": "https-h1",
    "blocks": 6,
}

PRESETS: dict[str, dict[str, Any]] = {
    "mid-image-series": {
        "title": "MID image series (seeds/000)",
        "description": "24 images (1,615,506 bytes) fetched as series of 3, 6, … 30 requests, 12 repetitions "
        "per period, one warm-up request per arm. Each series is issued the way the seed's app did: concurrently "
        "through NSURLSession, which on iOS opens up to 4 HTTP/1.1 connections per host (concurrency: parallel 4) "
        "while HTTP/2 multiplexes them on one. Reports per-period average and median series time (first request "
        "issued → last response completed), throughput and percentage gain over the baseline arm. 6 blocks, not "
        "the default 8: each block holds 1,980 requests per arm, enough to call +20 % in every simulated run.",
        "spec": MID_IMAGE_SERIES,
    },
    "mid-image-series-transatlantic": {
        "title": "MID image series over the Atlantic (seeds/000)",
        "description": "The MID image series as seeds/000 measured it: client in Cambridge MA, server in Zurich "
        "(the transatlantic profile: 95 ms RTT, 0.1 % loss), 24 images per series issued concurrently like "
        "NSURLSession on iOS (parallel 4 over HTTP/1.1, multiplexed over HTTP/2).",
        "spec": {**MID_IMAGE_SERIES, "name": "MID image series, transatlantic: HTTPS/1.1 vs HTTP/2",
                 "network_profiles": ["transatlantic"]},
    },
    "os-added-latency": {
        "title": "OS-added latency (seeds/002)",
        "description": "Server-side delay swept 0 … 1000 ms in 25 ms steps, 10 trials each; reports measured "
        "minus known delay per step: the latency the client stack and OS add. One arm, so no verdict: its 2 "
        "blocks (410 requests) are a measurement, not a comparison.",
        "spec": {
            "name": "OS-added latency: delay sweep",
            "workload": {"kind": "delay_sweep", "start_ms": 0, "stop_ms": 1000, "step_ms": 25, "trials": 10},
            "arms": [{"label": "h2", "protocol": "h2", "connection": "warm"}],
            "blocks": 2,
        },
    },
    "api-and-download": {
        "title": "API calls and downloads (seeds/003)",
        "description": "Test A: 5 rounds of 5 sequential echo calls on a fresh connection per round (first "
        "call vs the rest). Test B: 5 files (241,776 … 163,763 bytes) then 5 API calls on the same connection. "
        "A round is only 15 requests per arm, so it runs until decided (blocks: auto, 6 … 24 rounds).",
        "spec": {
            "name": "API and download: HTTPS/1.1 vs HTTP/2 vs gRPC",
            "workload": {"kind": "mixed", "rounds": 5, "calls": 5, "files": "seed-unity-5"},
            "arms": [
                {"label": "https-h1", "protocol": "h1", "connection": "warm"},
                {"label": "h2", "protocol": "h2", "connection": "warm"},
                {"label": "grpc", "protocol": "grpc", "connection": "warm"},
            ],
            "baseline_arm": "https-h1",
            # 15 requests per arm and block: too few for a fixed count to decide +20 % on one device
            # (6 blocks: 52 %), so the seed's rounds run until decided (one round a block, 6 … 24).
            "blocks": "auto",
        },
    },
    "payload-sweep": {
        "title": "Payload sweep (seeds/004)",
        "description": "800-byte request, responses log-spaced 1 KB … 2 MB; latency as a multiple of the "
        "baseline RTT per size, flagging size bands slower than RTT, handshakes, slow start and the path's rate "
        "explain, or slower than a larger size (the Nagle/delayed-ACK class). 6 blocks "
        "of 160 requests per arm: enough to call +20 % a regression on one device (every simulated run).",
        "spec": {
            "name": "Payload sweep",
            "workload": {
                "kind": "payload_sweep",
                "request_bytes": 800,
                "sizes": PAYLOAD_SWEEP_SIZES,
                "repetitions": 10,
            },
            "arms": [
                {"label": "h1", "protocol": "h1", "connection": "warm"},
                {"label": "h2", "protocol": "h2", "connection": "warm"},
            ],
            "baseline_arm": "h1",
            "blocks": 6,
        },
    },
    "aa-calibration": {
        "title": "A/A calibration (trust check)",
        "description": "The same arm measured twice, interleaved (mode aa): a small MID-image-series-shaped "
        "workload over 8 blocks on warm HTTP/2. Every verdict other than equivalent or inconclusive is a false "
        "positive; run it weekly per device pool to publish the empirical false-positive rate "
        "(GET /api/v1/pools/{slug}/aa-report).",
        "spec": {
            "name": "A/A calibration: h2 vs h2",
            "mode": "aa",
            "workload": {
                "kind": "series",
                "objects": "seed-mid-24",
                "periods": [3, 6, 12],
                "repetitions": 8,  # one per block: 6 left blocks 7 and 8 with only the warm-up
                "warmup": 1,
            },
            "arms": [{"label": "h2", "protocol": "h2", "connection": "warm"}],
            "blocks": 8,
        },
    },
}


def preset_names() -> list[str]:
    return list(PRESETS)
