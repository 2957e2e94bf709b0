"""The probe's sans-IO HTTP/2 core: bytes in, events out, replies queued.

Server frames are built here byte by byte (independently of the core's own encoder) or
come from the `h2` library's server state machine, a second implementation of RFC 9113.
"""

from __future__ import annotations

import re
import struct

import h2.config
import h2.connection
import h2.events
import hpack
import pytest
from latencylab_tools.probe.h2core import (
    CONNECTION_WINDOW,
    PREFACE,
    STREAM_WINDOW,
    ConnectionTerminated,
    DataReceived,
    GoingAway,
    H2Connection,
    H2ProtocolError,
    H2RequestError,
    PingReceived,
    ResponseReceived,
    SettingsReceived,
    StreamEnded,
    StreamReset,
    TrailersReceived,
    WindowUpdated,
)

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20


def fr(kind: int, flags: int, stream_id: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes((kind, flags)) + struct.pack(">I", stream_id) + payload


def settings(**values: int) -> bytes:
    codes = {"INITIAL_WINDOW_SIZE": 4, "MAX_FRAME_SIZE": 5, "ENABLE_PUSH": 2, "MAX_CONCURRENT_STREAMS": 3}
    return fr(SETTINGS, 0, 0, b"".join(struct.pack(">HL", codes[k], v) for k, v in values.items()))


def window_update(stream_id: int, increment: int) -> bytes:
    return fr(WINDOW_UPDATE, 0, stream_id, struct.pack(">L", increment))


def frames(data: bytes) -> list[tuple[int, int, int, bytes]]:
    """Splits bytes the core wrote into (type, flags, stream id, payload)."""
    out, pos = [], 0
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 3], "big")
        kind, flags = data[pos + 3], data[pos + 4]
        stream_id = int.from_bytes(data[pos + 5 : pos + 9], "big") & 0x7FFFFFFF
        out.append((kind, flags, stream_id, data[pos + 9 : pos + 9 + length]))
        pos += 9 + length
    assert pos == len(data), "a partial frame was written"
    return out


def started(authority: str = "example.test") -> H2Connection:
    """A core whose preface has been written."""
    core = H2Connection(authority)
    core.data_to_send()
    return core


def test_preface_settings_and_connection_window_leave_with_the_first_request():
    core = H2Connection("example.test:8443")
    assert core.send_request("GET", "/files/mid-01", extra_headers=[("x-trace", "abc")]) == 1
    out = core.data_to_send()
    assert out.startswith(PREFACE)
    written = frames(out[len(PREFACE):])
    assert [(k, f, s) for k, f, s, _ in written] == [
        (SETTINGS, 0, 0), (WINDOW_UPDATE, 0, 0), (HEADERS, END_STREAM | END_HEADERS, 1)]
    ours = dict(struct.unpack_from(">HL", written[0][3], off) for off in range(0, len(written[0][3]), 6))
    assert ours == {2: 0, 4: STREAM_WINDOW, 6: 64 * 1024}  # no push, 16 MiB stream window, header list limit
    assert struct.unpack(">L", written[1][3])[0] == CONNECTION_WINDOW - 65535
    fields = hpack.Decoder().decode(written[2][3])
    assert fields == [(":method", "GET"), (":scheme", "https"), (":authority", "example.test:8443"),
                      (":path", "/files/mid-01"), ("user-agent", "latencylab-probe/0.1"), ("x-trace", "abc")]
    assert core.data_to_send() == b""  # taken once
    assert core.send_request("GET", "/") == 3


def test_server_preface_is_applied_and_acknowledged():
    core = started()
    events = core.receive_data(settings(INITIAL_WINDOW_SIZE=1_000_000, MAX_FRAME_SIZE=32768, MAX_CONCURRENT_STREAMS=100)
                               + window_update(0, 1_000_000))
    assert events == [SettingsReceived({4: 1_000_000, 5: 32768, 3: 100}), WindowUpdated(0, 1_000_000)]
    assert frames(core.data_to_send()) == [(SETTINGS, ACK, 0, b"")]
    assert (core.peer_initial_window, core.peer_max_frame, core.send_window) == (1_000_000, 32768, 1_065_535)
    assert core.receive_data(fr(SETTINGS, ACK, 0)) == []  # the ack of ours: nothing to do
    assert not core.has_output


def test_headers_split_with_continuation_and_data_across_frames_fed_in_odd_pieces():
    core = started()
    sid = core.send_request("GET", "/bytes/40000")
    big = "v" * 20_000  # forces the block over one frame
    block = hpack.Encoder().encode([(":status", "200"), ("content-type", "application/octet-stream"), ("x-big", big)])
    body = bytes(range(256)) * 160  # 40,960 bytes in three DATA frames
    wire = (fr(HEADERS, 0, sid, block[:7000]) + fr(CONTINUATION, 0, sid, block[7000:14000])
            + fr(CONTINUATION, END_HEADERS, sid, block[14000:])
            + fr(DATA, 0, sid, body[:16384]) + fr(DATA, 0, sid, body[16384:32768])
            + fr(DATA, END_STREAM, sid, body[32768:]))
    events = []
    for off in range(0, len(wire), 1000):  # frames and even frame headers cut across calls
        events += core.receive_data(wire[off : off + 1000])
    assert events[0] == ResponseReceived(sid, 200, {":status": "200", "content-type": "application/octet-stream",
                                                    "x-big": big})
    assert [type(e) for e in events[1:]] == [DataReceived, DataReceived, DataReceived, StreamEnded]
    assert b"".join(e.data for e in events if isinstance(e, DataReceived)) == body
    assert events[-1] == StreamEnded(sid)
    assert core.open_streams == []


def test_padding_priority_interim_response_and_trailers():
    core = started()
    sid = core.send_request("POST", "/latencylab.target.v1.Target/Echo", b"\0\0\0\0\0",
                            [("content-type", "application/grpc"), ("te", "trailers")])
    enc = hpack.Encoder()
    interim = enc.encode([(":status", "100")])
    head = enc.encode([(":status", "200"), ("content-type", "application/grpc")])
    trailers = enc.encode([("grpc-status", "0")])
    pad = 7
    wire = (fr(HEADERS, END_HEADERS, sid, interim)
            # PADDED + PRIORITY: pad length, 5 priority bytes, block, padding
            + fr(HEADERS, END_HEADERS | PADDED | PRIORITY_FLAG, sid,
                 bytes((pad,)) + b"\0\0\0\0\x10" + head + b"\0" * pad)
            + fr(DATA, PADDED, sid, bytes((3,)) + b"hello" + b"\0\0\0")
            + fr(HEADERS, END_HEADERS | END_STREAM, sid, trailers))
    assert core.receive_data(wire) == [
        ResponseReceived(sid, 200, {":status": "200", "content-type": "application/grpc"}),
        DataReceived(sid, b"hello"),
        TrailersReceived(sid, {"grpc-status": "0"}),
        StreamEnded(sid),
    ]


def test_request_body_waits_for_window_updates():
    core = started()
    body = bytes(100_000)
    sid = core.send_request("POST", "/echo", body)
    sent = frames(core.data_to_send())
    assert sent[0][0] == HEADERS
    assert not sent[0][1] & END_STREAM
    assert sum(len(p) for k, _, _, p in sent if k == DATA) == 65535  # the default windows
    assert core.body_remaining(sid) == 100_000 - 65535
    # More connection window alone does not help: the stream's own window is spent too.
    assert core.receive_data(window_update(0, 1_000_000)) == [WindowUpdated(0, 1_000_000)]
    assert not core.has_output
    # The stream window opens: the rest goes, END_STREAM on its last frame.
    core.receive_data(window_update(sid, 50_000))
    rest = frames(core.data_to_send())
    assert [k for k, *_ in rest] == [DATA, DATA, DATA]
    assert sum(len(p) for *_, p in rest) == 100_000 - 65535
    assert rest[-1][1] == END_STREAM
    assert core.body_remaining(sid) == 0


def test_settings_initial_window_change_applies_to_open_streams():
    core = started()
    core.receive_data(window_update(0, 10_000_000))
    core.data_to_send()
    a = core.send_request("POST", "/echo", bytes(100_000))
    b = core.send_request("POST", "/echo", bytes(70_000))
    core.data_to_send()
    assert (core.body_remaining(a), core.body_remaining(b)) == (100_000 - 65535, 70_000 - 65535)
    core.receive_data(settings(INITIAL_WINDOW_SIZE=200_000))
    out = frames(core.data_to_send())
    assert out[0] == (SETTINGS, ACK, 0, b"")  # the ack first, then the unblocked bodies
    assert {s for k, _, s, _ in out[1:] if k == DATA} == {a, b}
    assert (core.body_remaining(a), core.body_remaining(b)) == (0, 0)


def test_body_frames_respect_the_peers_max_frame_size():
    core = started()
    core.receive_data(settings(MAX_FRAME_SIZE=40_000, INITIAL_WINDOW_SIZE=1_000_000) + window_update(0, 1_000_000))
    core.data_to_send()
    core.send_request("POST", "/echo", bytes(100_000))
    sizes = [len(p) for k, _, _, p in frames(core.data_to_send()) if k == DATA]
    assert sizes == [40_000, 40_000, 20_000]


def test_large_request_header_block_is_split_with_continuation():
    core = started()
    core.send_request("GET", "/", extra_headers=[("x-long", "a" * 40_000)])
    out = frames(core.data_to_send())
    assert [(k, f) for k, f, _, _ in out] == [(HEADERS, END_STREAM), (CONTINUATION, 0), (CONTINUATION, END_HEADERS)]
    decoded = hpack.Decoder(max_header_list_size=1 << 20).decode(b"".join(p for *_, p in out))
    assert dict(decoded)["x-long"] == "a" * 40_000


def test_ping_is_answered_and_its_ack_ignored():
    core = started()
    assert core.receive_data(fr(PING, 0, 0, b"12345678")) == [PingReceived(b"12345678")]
    assert frames(core.data_to_send()) == [(PING, ACK, 0, b"12345678")]
    assert core.receive_data(fr(PING, ACK, 0, b"87654321")) == []
    assert not core.has_output


def test_rst_stream_ends_tracking_but_its_data_still_counts_for_the_connection():
    core = started()
    sid = core.send_request("GET", "/delay/100")
    assert core.receive_data(fr(RST_STREAM, 0, sid, struct.pack(">L", 8))) == [StreamReset(sid, 8)]
    assert core.open_streams == []
    assert core.receive_data(fr(DATA, 0, sid, b"late")) == []  # no event for a stream we dropped
    assert core.recv_unacked == 4
    assert core.receive_data(fr(RST_STREAM, 0, 99, struct.pack(">L", 8))) == []  # unknown stream


def test_goaway_lets_covered_streams_finish_and_refuses_new_ones():
    core = started()
    first, second = core.send_request("GET", "/a"), core.send_request("GET", "/b")
    core.data_to_send()
    events = core.receive_data(fr(GOAWAY, 0, 0, struct.pack(">LL", first, 0)))
    assert events == [ConnectionTerminated(first, 0)]
    assert core.open_streams == [first]  # the second was not processed by the server
    with pytest.raises(GoingAway):
        core.send_request("GET", "/c")
    block = hpack.Encoder().encode([(":status", "204")])
    assert core.receive_data(fr(HEADERS, END_HEADERS | END_STREAM, first, block)) == [
        ResponseReceived(first, 204, {":status": "204"}), StreamEnded(first)]
    assert core.receive_data(fr(HEADERS, END_HEADERS | END_STREAM, second, hpack.Encoder().encode(
        [(":status", "200")]))) == []
    # A later GOAWAY can only lower the last stream id.
    assert core.receive_data(fr(GOAWAY, 0, 0, struct.pack(">LL", 99, 2))) == [ConnectionTerminated(first, 2)]


def test_concurrent_streams_get_their_own_events():
    core = started()
    ids = [core.send_request("GET", f"/bytes/{n}") for n in (3, 4, 5)]
    enc = hpack.Encoder()
    wire = b"".join(fr(HEADERS, END_HEADERS, s, enc.encode([(":status", "200")])) for s in reversed(ids))
    wire += fr(DATA, END_STREAM, ids[1], b"bbbb") + fr(DATA, 0, ids[0], b"aa") + fr(DATA, END_STREAM, ids[2], b"ccccc")
    wire += fr(DATA, END_STREAM, ids[0], b"a")
    events = core.receive_data(wire)
    ended = [e.stream_id for e in events if isinstance(e, StreamEnded)]
    assert ended == [ids[1], ids[2], ids[0]]
    body = {s: b"".join(e.data for e in events if isinstance(e, DataReceived) and e.stream_id == s) for s in ids}
    assert body == {ids[0]: b"aaa", ids[1]: b"bbbb", ids[2]: b"ccccc"}


def test_hpack_state_follows_streams_no_longer_tracked():
    """A header block on a forgotten stream is decoded anyway: a later block may refer
    to the dynamic-table entries it added."""
    core = started()
    first, second = core.send_request("GET", "/a"), core.send_request("GET", "/b")
    core.forget(first)
    enc = hpack.Encoder()
    headers = [(":status", "200"), ("x-session", "s" * 50)]
    a, b = enc.encode(headers), enc.encode(headers)
    assert len(b) < len(a)  # the second block indexes into the dynamic table
    assert core.receive_data(fr(HEADERS, END_HEADERS | END_STREAM, first, a)) == []
    assert core.receive_data(fr(HEADERS, END_HEADERS | END_STREAM, second, b)) == [
        ResponseReceived(second, 200, dict(headers)), StreamEnded(second)]


def test_receive_windows_are_reopened_at_half():
    core = started()
    sid = core.send_request("GET", "/bytes/big")
    core.data_to_send()
    core.receive_data(fr(HEADERS, END_HEADERS, sid, hpack.Encoder().encode([(":status", "200")])))
    chunk = fr(DATA, 0, sid, bytes(16384))
    for _ in range(STREAM_WINDOW // 2 // 16384 - 1):
        core.receive_data(chunk)
    assert not core.has_output
    core.receive_data(chunk)
    assert frames(core.data_to_send()) == [(WINDOW_UPDATE, 0, sid, struct.pack(">L", STREAM_WINDOW // 2))]


def test_request_errors_queue_nothing_and_use_no_stream_id():
    core = started()
    for method, path, headers in (("GET", "/a\r\nx: y", []), ("GET", "", []), ("GET", "/", [("x-empty", "")]),
                                  ("GET", "/", [("x-nul", "a\0b")])):
        with pytest.raises(H2RequestError):
            core.send_request(method, path, b"", headers)
    assert not core.has_output
    assert core.open_streams == []
    assert core.send_request("GET", "/") == 1


def _block(*fields: tuple[str, str]) -> bytes:
    return hpack.Encoder().encode(list(fields))


OK = _block((":status", "200"))
HALF_BLOCK = fr(HEADERS, 0, 1, OK[:1])  # no END_HEADERS: CONTINUATION must follow
PROTOCOL_ERRORS = {  # what the peer sends: (frames, the error's wording)
    "DATA on stream 0": (fr(DATA, 0, 0, b"x"), "DATA on stream 0"),
    "HEADERS on stream 0": (fr(HEADERS, END_HEADERS, 0, OK), "HEADERS on stream 0"),
    "DATA before the response headers": (fr(DATA, 0, 1, b"x"), "DATA before the response headers"),
    "frame larger than our max frame size": (fr(DATA, 0, 1, bytes(16385)), "of 16385 bytes"),
    "CONTINUATION without HEADERS": (fr(CONTINUATION, END_HEADERS, 1, OK), "unexpected CONTINUATION"),
    "another frame inside a header block": (HALF_BLOCK + fr(PING, 0, 0, bytes(8)), "expected CONTINUATION"),
    "CONTINUATION on another stream": (HALF_BLOCK + fr(CONTINUATION, END_HEADERS, 3, OK[1:]),
                                       "unexpected CONTINUATION"),
    "PING of 7 bytes": (fr(PING, 0, 0, bytes(7)), "bad PING"),
    "PING on a stream": (fr(PING, 0, 1, bytes(8)), "bad PING"),
    "SETTINGS not a multiple of 6": (fr(SETTINGS, 0, 0, bytes(5)), "SETTINGS size"),
    "SETTINGS on a stream": (fr(SETTINGS, 0, 1, b""), "SETTINGS on a stream"),
    "SETTINGS ACK with payload": (fr(SETTINGS, ACK, 0, bytes(6)), "SETTINGS ACK with a payload"),
    "initial window too large": (settings(INITIAL_WINDOW_SIZE=2**31), "INITIAL_WINDOW_SIZE too large"),
    "max frame size too small": (settings(MAX_FRAME_SIZE=1000), "bad SETTINGS_MAX_FRAME_SIZE"),
    "enable push 2": (settings(ENABLE_PUSH=2), "bad SETTINGS_ENABLE_PUSH"),
    "WINDOW_UPDATE of 0": (window_update(0, 0), "WINDOW_UPDATE of 0"),
    "WINDOW_UPDATE of 3 bytes": (fr(WINDOW_UPDATE, 0, 0, bytes(3)), "WINDOW_UPDATE size"),
    "connection window overflow": (window_update(0, 2**31 - 1), "window overflow"),
    "RST_STREAM on stream 0": (fr(RST_STREAM, 0, 0, bytes(4)), "bad RST_STREAM"),
    "GOAWAY too short": (fr(GOAWAY, 0, 0, bytes(7)), "bad GOAWAY"),
    "PUSH_PROMISE": (fr(PUSH_PROMISE, END_HEADERS, 1, bytes(4) + OK), "PUSH_PROMISE"),
    "padding longer than the frame": (fr(HEADERS, END_HEADERS | PADDED, 1, bytes((200,)) + OK), "bad padding"),
    "bad :status": (fr(HEADERS, END_HEADERS, 1, _block((":status", "2000"))), "bad :status"),
    "uppercase header name": (fr(HEADERS, END_HEADERS, 1, b"\x88" + b"\x00\x06X-Name\x01v"), "uppercase header name"),
    "interim response ends the stream": (fr(HEADERS, END_HEADERS | END_STREAM, 1, _block((":status", "103"))),
                                         "interim response ends the stream"),
    "trailers without END_STREAM": (fr(HEADERS, END_HEADERS, 1, OK) + fr(HEADERS, END_HEADERS, 1, _block(("a", "b"))),
                                    "trailers without END_STREAM"),
    "HPACK garbage": (fr(HEADERS, END_HEADERS, 1, b"\xff\xff\xff\xff\xff\xff"), "HPACK"),
    "header not UTF-8": (fr(HEADERS, END_HEADERS, 1, b"\x88" + b"\x00\x01x\x01\xff"), "not UTF-8"),
}


@pytest.mark.parametrize("wire, message", PROTOCOL_ERRORS.values(), ids=PROTOCOL_ERRORS.keys())
def test_connection_errors_raise(wire, message):
    core = started()
    core.send_request("GET", "/")
    with pytest.raises(H2ProtocolError, match=re.escape(message)):
        core.receive_data(wire)


def test_unknown_and_priority_frames_are_ignored():
    core = started()
    core.send_request("GET", "/")
    assert core.receive_data(fr(PRIORITY, 0, 1, bytes(5)) + fr(0xFA, 0, 0, b"extension")) == []


def _pump(core: H2Connection, server: h2.connection.H2Connection) -> list[h2.events.Event]:
    """Moves the client's queued bytes into the h2 library's server; returns its events."""
    out = core.data_to_send()
    return server.receive_data(out) if out else []


def test_interop_with_the_h2_library_as_server():
    server = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    server.initiate_connection()
    core = H2Connection("localhost:8443")
    body = bytes(range(256)) * 1000  # 256,000 bytes: needs WINDOW_UPDATEs from the server
    sid = core.send_request("POST", "/echo", body, [("content-type", "application/octet-stream")])
    received = bytearray()
    request_headers = None
    client_events = core.receive_data(server.data_to_send())  # the server's preface
    assert isinstance(client_events[0], SettingsReceived)
    for _ in range(20):
        for ev in _pump(core, server):
            if isinstance(ev, h2.events.RequestReceived):
                request_headers = dict(ev.headers)
            elif isinstance(ev, h2.events.DataReceived):
                received += ev.data
                server.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        if len(received) == len(body):
            break
        core.receive_data(server.data_to_send())
    assert bytes(received) == body
    assert request_headers == {":method": "POST", ":scheme": "https", ":authority": "localhost:8443", ":path": "/echo",
                               "user-agent": "latencylab-probe/0.1", "content-type": "application/octet-stream",
                               "content-length": "256000"}
    server.send_headers(sid, [(":status", "200"), ("server-timing", "app;dur=0.1")])
    server.send_data(sid, b"x" * 16_384)
    server.send_data(sid, b"x" * 13_616)
    server.send_headers(sid, [("grpc-status", "0")], end_stream=True)
    events = core.receive_data(server.data_to_send())
    assert events[0] == ResponseReceived(sid, 200, {":status": "200", "server-timing": "app;dur=0.1"})
    assert sum(len(e.data) for e in events if isinstance(e, DataReceived)) == 30_000
    assert events[-2:] == [TrailersReceived(sid, {"grpc-status": "0"}), StreamEnded(sid)]
    # Our replies (SETTINGS ack) are legal to the server too.
    assert not any(isinstance(e, h2.events.ConnectionTerminated) for e in _pump(core, server))
