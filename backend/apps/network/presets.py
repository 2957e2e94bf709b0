"""The built-in network profiles (docs/network-conditions.md, "Presets"). Runners know them
by name; the backend keeps the summary figures to list and explain them."""

from typing import Any

# name: (down kbit/s, up kbit/s, RTT ms, loss %, origin, note)
BUILT_IN: dict[str, tuple[int | None, int | None, int, float, str, str]] = {
    "none": (None, None, 0, 0, "stack baseline", "no emulation: loopback or the lab's own network"),
    "cable": (5000, 1000, 28, 0, "WebPageTest", ""),
    "dsl": (1500, 384, 50, 0, "WebPageTest", ""),
    "3g": (1600, 768, 300, 0, "WebPageTest", ""),
    "3g-fast": (1600, 768, 150, 0, "WebPageTest", ""),
    "4g": (9000, 9000, 170, 0, "WebPageTest", ""),
    "lte": (12000, 12000, 70, 0, "WebPageTest", ""),
    "edge-lossy": (240, 200, 840, 1, "Augmented Traffic Control", ""),
    "2g-rural": (20, 18, 1300, 2, "Augmented Traffic Control", ""),
    "qir-default": (10000, 10000, 30, 0, "QUIC interop runner", "25-packet bottleneck queue"),
    "transatlantic": (None, None, 95, 0.1, "seeds/000", "Cambridge MA ↔ Zurich"),
    "lossy-wifi": (20000, 10000, 20, 2, "seeds/000", "adverse conditions"),
    "train": (3000, 1000, 120, 1.5, "seeds/003", "±40 ms jitter, bursty loss, 2 s blackout every 30 s"),
}


def built_in_payload(name: str) -> dict[str, Any]:
    down, up, rtt, loss, origin, note = BUILT_IN[name]
    return {"name": name, "built_in": True, "origin": origin, "description": note, "down_kbit": down,
            "up_kbit": up, "rtt_ms": rtt, "loss_pct": loss, "spec": None}
