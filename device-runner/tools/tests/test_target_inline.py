"""Inline (in data_received) answers vs task answers: ordering, bodies and the
Server-Timing start point, on h1 and h2. No time bounds: orderings and containments that
hold however loaded the machine."""

import asyncio
import socket
import ssl
import time

import h11
import httpx
from latencylab_tools.target import content
from latencylab_tools.target.routes import MAX_DELAY_MS


def _h1_responses(data: bytes, count: int) -> list[tuple[h11.Response, bytes]]:
    conn = h11.Connection(h11.CLIENT)
    out: list[tuple[h11.Response, bytes]] = []
    # h11 client needs a matching request per response cycle.
    conn.send(h11.Request(method="GET", target="/", headers=[("host", "x")]))
    conn.send(h11.EndOfMessage())
    conn.receive_data(data)
    conn.receive_data(b"")
    head, body = None, bytearray()
    while len(out) < count:
        event = conn.next_event()
        if isinstance(event, h11.Response):
            head, body = event, bytearray()
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            out.append((head, bytes(body)))
            if len(out) < count:
                conn.start_next_cycle()
                conn.send(h11.Request(method="GET", target="/", headers=[("host", "x")]))
                conn.send(h11.EndOfMessage())
        else:
            raise AssertionError(f"unexpected {event!r}")
    return out


def test_h1_pipeline_mixes_inline_and_task_answers_in_order(target_server):
    big = 300_000  # above the inline limit: answered from a task with back-pressure
    with socket.create_connection(("127.0.0.1", target_server.plain_port), timeout=10) as s:
        s.sendall(b"GET /bytes/5 HTTP/1.1\r\nHost: x\r\n\r\n"
                  + f"GET /bytes/{big} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
                  + b"GET /delay/20 HTTP/1.1\r\nHost: x\r\n\r\n"
                  b"POST /bytes/7 HTTP/1.1\r\nHost: x\r\nContent-Length: 800\r\n\r\n" + bytes(800)
                  + b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(1 << 20):
            data += chunk
    responses = _h1_responses(data, 5)
    assert [r.status_code for r, _ in responses] == [200] * 5
    assert [len(b) for _, b in responses] == [5, big, 2, 7, 3]
    assert responses[1][1] == content.byte_range(big)
    assert all(dict(r.headers)[b"server-timing"].startswith(b"app;dur=") for r, _ in responses)


def test_h1_server_timing_starts_when_request_is_complete(target_server):
    """The wait for a slow request body is not the server's time: the Server-Timing fits in
    what the client saw between starting to send the body's last bytes and reading the whole
    answer, which no load on the machine can make false (a clock started at the headers would
    count the 300 ms gap, which the client's interval does not hold)."""
    with socket.create_connection(("127.0.0.1", target_server.plain_port), timeout=10) as s:
        s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\n")
        time.sleep(0.3)  # the slow request body under test, not an ordering of the test's steps
        sending = time.perf_counter()
        s.sendall(b"hello")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        client_ms = (time.perf_counter() - sending) * 1000
    (resp, body), = _h1_responses(data, 1)
    assert body == b"hello"
    server_ms = float(dict(resp.headers)[b"server-timing"].split(b"dur=")[1])
    assert server_ms <= client_ms + 0.001, (server_ms, client_ms)  # + the header's rounding to the µs


def test_h2_concurrent_streams_inline_task_and_delayed(target_server):
    ctx = ssl.create_default_context(cafile=str(target_server.ca_file))

    async def run():
        async with httpx.AsyncClient(base_url=f"https://localhost:{target_server.tls_port}", verify=ctx,
                                     http1=False, http2=True, timeout=10) as client:
            def get(path, method="GET", **kw):
                return client.request(method, path, **kw)

            # A stream delayed far longer than anything here waits for (cancelled once the rest
            # answered): the others finishing first is then an ordering no load can change.
            held = asyncio.ensure_future(get(f"/delay/{MAX_DELAY_MS}", timeout=None))
            results = await asyncio.gather(
                get("/delay/300"), get("/bytes/1000000"), get("/bytes/10"), get("/bytes/0"),
                get("/bytes/35000", method="POST", content=bytes(800)), get("/bytes/10", method="HEAD"),
                get("/nope"),
            )
            held_open = not held.done()
            held.cancel()
            return results, held_open

    results, held_open = asyncio.run(run())
    assert all(r.http_version == "HTTP/2" for r in results)
    assert [r.status_code for r in results] == [200, 200, 200, 200, 200, 200, 404]
    assert [len(r.content) for r in results[:6]] == [2, 1_000_000, 10, 0, 35_000, 0]
    assert results[1].content == content.byte_range(1_000_000)
    assert results[5].headers["content-length"] == "10"
    assert all("server-timing" in r.headers for r in results)
    # Answers, delayed or not, are not held up behind a delayed stream.
    assert held_open
