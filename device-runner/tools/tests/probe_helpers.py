"""Helpers for the probe tests (not fixtures): origins and sample checks."""

from __future__ import annotations

from latencylab_contract.validation import validate_sample
from latencylab_tools.probe import Origin

DRIVER_CONTEXT = {"arm": "test", "block": 0, "period": None, "repetition": 0, "seq": 0, "step": None,
                  "phase": "measure"}
ORDER = ("conn_start", "tls_start", "conn_ready", "req_start", "req_end", "resp_first_byte", "resp_headers_end",
         "resp_end", "app_done")


def origin_for(protocol: str, host: str, plain_port: int, tls_port: int) -> Origin:
    if protocol == "h1c":
        return Origin("http", host, plain_port)
    return Origin("https", host, tls_port, server_name="localhost")


def check_sample(fields: dict, *, allow_early: bool = False) -> dict:
    """Schema-valid once the driver adds its context; timestamps in causal order."""
    doc = {**DRIVER_CONTEXT, **fields}
    validate_sample(doc)
    assert fields["t0"] == 0
    if fields["error_class"] is None:
        seen = [(k, fields[k]) for k in ORDER if fields[k] is not None]
        if allow_early and fields.get("early_data"):
            # 0-RTT: the request leaves before the handshake completes.
            seen = [(k, v) for k, v in seen if k != "conn_ready"]
        values = [v for _, v in seen]
        assert values == sorted(values), seen
    return doc
