"""HTTP/3 server side (aioquic) on the UDP port with the TLS port's number."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.asyncio.server import QuicServer
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, H3Event, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ProtocolNegotiated, QuicEvent
from aioquic.tls import SessionTicket

from . import routes
from .transport import ServerOptions


class TicketStore:
    """Session tickets for resumption and 0-RTT. Single use: pop() is aioquic's
    recommended anti-replay for early data. Bounded so a busy server cannot grow it."""

    def __init__(self, limit: int = 10_000):
        self._tickets: OrderedDict[bytes, SessionTicket] = OrderedDict()
        self._limit = limit

    def add(self, ticket: SessionTicket) -> None:
        self._tickets[ticket.ticket] = ticket
        while len(self._tickets) > self._limit:
            self._tickets.popitem(last=False)

    def pop(self, label: bytes) -> SessionTicket | None:
        return self._tickets.pop(label, None)


class H3ServerProtocol(QuicConnectionProtocol):
    options: ServerOptions  # set by the factory in serve_h3

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._h3: H3Connection | None = None
        self._requests: dict[int, tuple[dict[str, str], bytearray]] = {}

    def quic_event_received(self, event: QuicEvent) -> None:
        if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
            self._h3 = H3Connection(self._quic)
        if self._h3 is None:
            return
        for h3_event in self._h3.handle_event(event):
            self._h3_event(h3_event)

    def _h3_event(self, event: H3Event) -> None:
        if isinstance(event, HeadersReceived):
            headers = {k.decode(): v.decode() for k, v in event.headers}
            self._requests[event.stream_id] = (headers, bytearray())
            if event.stream_ended:
                self._complete(event.stream_id)
        elif isinstance(event, DataReceived):
            request = self._requests.get(event.stream_id)
            if request is None:
                return
            request[1].extend(event.data)
            if event.stream_ended:
                self._complete(event.stream_id)

    def _complete(self, stream_id: int) -> None:
        done_ns = time.perf_counter_ns()
        headers, body = self._requests.pop(stream_id)
        asyncio.get_running_loop().create_task(self._respond(stream_id, headers, bytes(body), done_ns))

    async def _respond(self, stream_id: int, headers: dict[str, str], body: bytes, done_ns: int) -> None:
        if self._h3 is None:
            raise RuntimeError("self._h3 is None")
        method = headers.get(":method", "GET")
        resp = routes.handle(method, headers.get(":path", "/"), body)
        if resp.delay_s:
            await asyncio.sleep(resp.delay_s)
        no_body = method == "HEAD" or resp.length == 0
        out = [
            (b":status", str(resp.status).encode()),
            (b"content-type", resp.content_type.encode()),
            (b"content-length", str(resp.length).encode()),
            *[(k.encode(), v.encode()) for k, v in resp.extra_headers],
            *[(k.encode(), v.encode()) for k, v in self.options.common_headers()],
            (b"server-timing", routes.server_timing(time.perf_counter_ns() - done_ns).encode()),
        ]
        try:
            self._h3.send_headers(stream_id, out, end_stream=no_body)
            if not no_body:
                chunks = list(resp.chunks)
                for i, chunk in enumerate(chunks):
                    self._h3.send_data(stream_id, bytes(chunk), end_stream=i == len(chunks) - 1)
        except Exception:  # noqa: BLE001 - stream reset by the client or connection closed
            return
        self.transmit()


async def serve_h3(host: str, port: int, cert: str, key: str, options: ServerOptions) -> QuicServer:
    configuration = QuicConfiguration(
        is_client=False,
        alpn_protocols=H3_ALPN,
        max_datagram_frame_size=65536,
        # Larger windows than aioquic's 1 MiB default, so 10 MB downloads are not
        # dominated by flow-control round trips.
        max_data=64 * 1024 * 1024,
        max_stream_data=16 * 1024 * 1024,
    )
    configuration.load_cert_chain(cert, key)
    tickets = TicketStore()

    class Protocol(H3ServerProtocol):
        pass

    Protocol.options = options
    return await serve(
        host,
        port,
        configuration=configuration,
        create_protocol=Protocol,
        session_ticket_fetcher=tickets.pop,
        session_ticket_handler=tickets.add,
    )
