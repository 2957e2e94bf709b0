"""The comparison `make up` submits as its demo (stack.py `demo`): seeds/000's MID image series,
HTTP/1.1 against HTTP/2, over an emulated LTE link where this host can emulate one.

Over loopback there is no round trip for multiplexing to save, and the demo used to end in
"h2 median +137 %" (sub-millisecond requests, where HTTP/2's framing is the larger cost)
while the seed found HTTP/2 series several times faster over a long path. The built-in `lte`
profile (70 ms RTT, 12 Mbit/s each way) gives the round trips back; the host runner puts the
reference target and its probe in network namespaces joined by the link emulator.

Each arm uses one connection (`concurrency: {parallel: 1}`): HTTP/1.1 fetches one image
after another on it, HTTP/2 multiplexes the whole series on its own. That is the effect the
seed measured (its HTTPS client fetched the images consecutively) and it grows with the
series: a series of N images costs HTTP/1.1 N round trips and HTTP/2 about one. The preset's
own `parallel 4` (NSURLSession's four HTTP/1.1 connections per host) keeps a 12 Mbit/s link
busy almost as well as one multiplexed connection: measured over `lte`, HTTP/2 was ahead by
only 3-19 % at every period, not growing (docs/methodology.md §6.10).

Where no link can be emulated (not root, no network namespaces) the demo runs on loopback
and says so in its name and its `network` tag, which the comparison page shows.
"""

from typing import Any

DEMO_PROFILE = "lte"
# 4 blocks of one repetition: about a minute of measuring over `lte` (periods 3 … 24 cost
# HTTP/1.1 ~6 s and HTTP/2 ~2.6 s per repetition), and 4 paired blocks for the verdict.
DEMO_WORKLOAD = {"kind": "series", "periods": [3, 6, 12, 24], "repetitions": 4, "concurrency": {"parallel": 1}}
DEMO_BLOCKS = 4


def demo_spec(emulation_unavailable: str | None) -> dict[str, Any]:
    """The demo's spec; `emulation_unavailable` is why this host cannot emulate a link
    (netlab.emulation_unavailable), None when it can."""
    spec: dict[str, Any] = {"preset": "mid-image-series", "workload": DEMO_WORKLOAD, "blocks": DEMO_BLOCKS}
    if emulation_unavailable is None:
        return {
            **spec,
            "name": "Demo: MID image series over emulated LTE, HTTP/1.1 one at a time vs HTTP/2 multiplexed",
            "network_profiles": [DEMO_PROFILE],
            "tags": {"source": "make-up-demo",
                     "network": "emulated LTE (70 ms RTT, 12 Mbit/s): the link emulator between the host "
                                "runner's probe and the reference target, one connection per arm"},
        }
    return {
        **spec,
        "name": "Demo on loopback (not a mobile network): MID image series, HTTP/1.1 vs HTTP/2",
        "network_profiles": ["none"],
        "tags": {"source": "make-up-demo",
                 "network": f"loopback, not a mobile network: no round trip for HTTP/2 to save. "
                            f"No emulated link here: {emulation_unavailable}"[:200]},
    }
