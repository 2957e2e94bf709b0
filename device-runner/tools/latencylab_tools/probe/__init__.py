"""Host probe: one instrumented request at a time over h1c, h1, h2, h3 or gRPC.

    session = open_session(protocol="h2", connection="warm", origin=Origin(...), ca_file=...)
    fields = session.fetch(ProbeRequest(method="GET", path="/files/mid-01", op="file"))
    session.close()

fields holds sample.schema.json's timing and context fields except the driver's
(arm, block, period, repetition, seq, step, phase).
"""

from .session import ProbeSession, open_session
from .types import CONNECTION_POLICIES, PROTOCOLS, Origin, ProbeRequest

__all__ = ["CONNECTION_POLICIES", "PROTOCOLS", "Origin", "ProbeRequest", "ProbeSession", "open_session"]
